/// `wrong-type`: history columns holding text or blobs where Core Data
/// writes numbers (a store edited by hand or damaged): those rows read with
/// null timestamps, no author or no transaction.
struct WrongTypeRule: CheckRule {
    let id = "wrong-type"
    let severity = Severity.warning
    let summary = "text or blobs where Core Data writes numbers"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let found = try c.store.misTypedColumns()
        guard !found.isEmpty else { return [] }
        let list = found.map { "\($0.column) in \($0.rows) row\($0.rows == 1 ? "" : "s")" }.joined(separator: ", ")
        return [finding("Text or blobs where Core Data writes numbers: \(list). Core Data never writes these; the store was edited or damaged. cdhist reads those values as null (see the warnings of export).",
                        Dictionary(uniqueKeysWithValues: found.map { ($0.column, PlistValue.integer(Int64($0.rows))) }))]
    }
}
