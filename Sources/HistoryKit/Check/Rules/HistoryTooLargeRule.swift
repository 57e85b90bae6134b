/// `history-too-large`: more transactions or changes than the thresholds, or history too large a
/// share of the file (once it holds more than `minHistoryBytes`): nothing purges history, or too little.
struct HistoryTooLargeRule: CheckRule {
    let id = "history-too-large"
    let severity = Severity.warning
    let summary = "history holds more transactions, changes or bytes than the thresholds (is any cleaner running?)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let s = c.statistics
        let share = s.space.databaseBytes > 0 ? Double(s.space.historyBytes) / Double(s.space.databaseBytes) : 0
        var over: [String] = []
        if s.transactionCount > c.config.maxTransactions {
            over.append("\(s.transactionCount) transactions (threshold \(c.config.maxTransactions))")
        }
        if s.changeCount > c.config.maxChanges {
            over.append("\(s.changeCount) changes (threshold \(c.config.maxChanges))")
        }
        if share > c.config.maxHistoryShare && s.space.historyBytes >= Int64(c.config.minHistoryBytes) {
            let bytes = s.space.historyBytes
            let size = bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
            let percent = (share * 100).wholeDescription
            let threshold = (c.config.maxHistoryShare * 100).wholeDescription
            over.append("history is \(percent)% of the database, \(size) (threshold \(threshold)%)")
        }
        guard !over.isEmpty else { return [] }
        return [
            finding(
                "History is large: \(over.joined(separator: "; ")). \(PurgeEvidence.sentence(s))",
                [
                    "transactions": .integer(Int64(s.transactionCount)), "changes": .integer(Int64(s.changeCount)),
                    "historyShare": .real(share), "historyBytes": .integer(s.space.historyBytes),
                ])
        ]
    }
}
