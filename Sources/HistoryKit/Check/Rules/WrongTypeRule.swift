import HistoryReading

/// `wrong-type`: history columns holding text or blobs where Core Data
/// writes numbers (a store edited by hand or damaged): those rows read with
/// null timestamps or no author; a change's ZTRANSACTIONID as SQLite converts
/// it (usually to no transaction).
struct WrongTypeRule: CheckRule {
    let id = "wrong-type"
    let severity = Severity.warning
    let summary = "text or blobs where Core Data writes numbers"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let found = try c.store.misTypedColumns()
        guard !found.isEmpty else { return [] }
        let list = found.map { "\($0.column) in \($0.rows) row\($0.rows == 1 ? "" : "s")" }.joined(separator: ", ")
        let reading =
            found.contains { $0.column == "ACHANGE.ZTRANSACTIONID" }
            ? "as null, and a change's ZTRANSACTIONID as SQLite converts it (usually to no transaction)" : "as null"
        return [
            finding(
                RuleMessages.wrongType(list: list, reading: reading),
                Dictionary(uniqueKeysWithValues: found.map { ($0.column, PlistValue.integer(Int64($0.rows))) }))
        ]
    }
}
