/// `orphan-changes`: `ACHANGE` rows whose transaction does not exist.
struct OrphanChangesRule: CheckRule {
    let id = "orphan-changes"
    let severity = Severity.error
    let summary = "changes without a transaction"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let n = c.statistics.orphanChangeCount
        guard n > 0 else { return [] }
        return [
            finding(
                RuleMessages.orphanChanges(n),
                ["orphanChanges": .integer(Int64(n))])
        ]
    }
}
