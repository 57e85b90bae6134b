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
                """
                No merge position was found (\(Control.defaults), \(Control.token) or \(Control.groupContainer) \
                give where the app keeps one) and history was never purged: an app that keeps its token only in \
                memory fetches all \(plural(s.transactionCount, "transaction")) and \
                \(plural(s.changeCount, "change")) at every launch. Save the last transaction's token (archived, \
                in the App Group's defaults or a file) after each merge, fetch after it, and purge what every \
                process has merged.
                """,
                ["transactions": .integer(Int64(s.transactionCount)), "changes": .integer(Int64(s.changeCount))])
        ]
    }
}
