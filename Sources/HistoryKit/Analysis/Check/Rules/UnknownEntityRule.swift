import GRDB

/// `unknown-entity`: `ACHANGE` rows whose `ZENTITY` is not in `Z_PRIMARYKEY`.
struct UnknownEntityRule: CheckRule {
    let id = "unknown-entity"
    let severity = Severity.warning
    let summary = "changes of an entity the store does not know"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let counts = try c.store.entityChangeCounts()
        let unknown = counts.filter { c.store.catalog.entity(number: $0.key) == nil }
        guard !unknown.isEmpty else { return [] }
        let total = unknown.values.reduce(0) { $0 + $1.total }
        return [finding("\(total) changes name entity numbers \(unknown.keys.sorted().map(String.init).joined(separator: ", ")) that Z_PRIMARYKEY does not list (a migration that did not rewrite history?). They cannot be decoded.",
                        ["changes": .integer(Int64(total)), "entityNumbers": .array(unknown.keys.sorted().map { .integer($0) })])]
    }
}
