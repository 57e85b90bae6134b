/// `history-old`: the oldest transaction is older than the newest by more than the threshold.
/// Old history on its own costs little (`history-too-large` says when it costs space); it says
/// whether anything purges.
struct HistoryOldRule: CheckRule {
    let id = "history-old"
    let severity = Severity.info
    let summary = "the oldest transaction is older than the threshold (is any cleaner running?)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        // Measured from the newest transaction, not the clock: a copied or archived store does not age.
        let ageDays = c.statistics.timestamps.map { ($0.upperBound - $0.lowerBound) / 86400 } ?? 0
        guard ageDays > c.config.maxHistoryAgeDays else { return [] }
        return [
            finding(
                RuleMessages.historyOld(
                    ageDays: ageDays, threshold: c.config.maxHistoryAgeDays, statistics: c.statistics),
                ["oldestAgeDays": .real(ageDays)])
        ]
    }
}
