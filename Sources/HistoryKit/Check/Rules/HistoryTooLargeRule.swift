/// `history-too-large`: transactions, changes, share of the file or age of the
/// oldest transaction above the thresholds: nothing purges history.
struct HistoryTooLargeRule: CheckRule {
    let id = "history-too-large"
    let severity = Severity.warning
    let summary = "history is larger or older than the thresholds (is any cleaner running?)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let s = c.statistics
        let share = s.space.databaseBytes > 0 ? Double(s.space.historyBytes) / Double(s.space.databaseBytes) : 0
        // Measured from the newest transaction, not the clock: a copied or archived store does not age.
        let ageDays = s.timestamps.map { ($0.upperBound - $0.lowerBound) / 86400 } ?? 0
        var over: [String] = []
        if s.transactionCount > c.config.maxTransactions { over.append("\(s.transactionCount) transactions (threshold \(c.config.maxTransactions))") }
        if s.changeCount > c.config.maxChanges { over.append("\(s.changeCount) changes (threshold \(c.config.maxChanges))") }
        if share > c.config.maxHistoryShare { over.append("history is \((share * 100).wholeDescription)% of the database (threshold \((c.config.maxHistoryShare * 100).wholeDescription)%)") }
        let old = ageDays > c.config.maxHistoryAgeDays
        if old { over.append("the oldest transaction is \(days(ageDays)) older than the newest (threshold \(days(c.config.maxHistoryAgeDays)))") }
        guard !over.isEmpty else { return [] }
        let what = over.count == 1 && old ? "History is old" : "History is large"
        return [finding("\(what): \(over.joined(separator: "; ")). Nothing seems to purge it: purge what every actor has merged (\(Control.showActors) shows what each cleaner would delete; then \(Control.purgeByStrategy)) and VACUUM.",
                        ["transactions": .integer(Int64(s.transactionCount)), "changes": .integer(Int64(s.changeCount)),
                         "historyShare": .real(share), "oldestAgeDays": .real(ageDays)])]
    }
}
