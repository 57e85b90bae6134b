import GRDB

/// `unknown-entity`: `ACHANGE` rows whose `ZENTITY` is not in `Z_PRIMARYKEY`.
struct UnknownEntityRule: CheckRule {
    let id = "unknown-entity"
    let severity = Severity.warning
    let summary = "changes of an entity the store does not know"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let tally = try c.entityChangeCounts()
        let unknown = tally.byEntity.filter { c.store.catalog.entity(number: $0.key) == nil }
        var findings: [Finding] = []
        if !unknown.isEmpty {
            let total = unknown.values.reduce(0) { $0 + $1.total }
            findings.append(
                finding(
                    RuleMessages.unknownEntities(total: total, entityNumbers: unknown.keys.sorted()),
                    [
                        "changes": .integer(Int64(total)),
                        "entityNumbers": .array(unknown.keys.sorted().map { .integer($0) }),
                    ]))
        }
        let unnumbered = tally.withoutEntityNumber.total
        if unnumbered > 0 {
            findings.append(
                finding(
                    RuleMessages.undecodableEntity(unnumbered),
                    ["changesWithoutEntityNumber": .integer(Int64(unnumbered))]))
        }
        return findings
    }
}
