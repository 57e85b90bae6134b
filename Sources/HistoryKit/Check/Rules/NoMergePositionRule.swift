/// `no-merge-position`: no merge position was found anywhere (no defaults key, token or
/// CloudKit export position) and history was never purged: an app that keeps its token only
/// in memory (Aidoku, Apple's Earthquakes sample) fetches the whole history at every launch.
struct NoMergePositionRule: CheckRule {
    let id = "no-merge-position"
    let severity = Severity.info
    let summary = "no saved merge position: every launch would read the whole history"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let s = c.statistics
        guard s.transactionCount > 0, (s.transactionNumbers?.lowerBound ?? 1) <= 1, c.mirroring == nil else {
            return []
        }
        let positioned = (c.mergeState?.actors ?? []).contains { !$0.records.isEmpty }
        guard !positioned else { return [] }
        return [
            finding(
                RuleMessages.noMergePosition(s),
                ["transactions": .integer(Int64(s.transactionCount)), "changes": .integer(Int64(s.changeCount))])
        ]
    }
}
