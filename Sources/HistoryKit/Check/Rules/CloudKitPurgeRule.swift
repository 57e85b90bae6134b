import HistoryReading
import HistoryWrites

/// `cloudkit-purge`: the configured cleaner would delete transactions written
/// by CloudKit mirroring, which Apple advises against.
struct CloudKitPurgeRule: CheckRule {
    let id = "cloudkit-purge"
    let severity = Severity.warning
    let summary = "the configured cleaner would delete CloudKit mirroring transactions"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let strategy = c.config.strategy, let report = c.mergeState,
            report.cleaner(strategy)?.cutoff.purges == true
        else { return [] }
        // What the purge by that strategy selects: before its cut-off, or its authors' at every date.
        let preview = try PurgePreview.make(
            try PurgeSelection.strategy(strategy, report: report, narrowing: HistoryQuery()).query, in: c.store,
            actors: [], readers: [])
        guard preview.cloudKitTransactions > 0 else { return [] }
        return [
            finding(
                RuleMessages.cloudKitPurge(strategy: strategy, preview: preview),
                [
                    "strategy": .string(strategy.rawValue),
                    "cloudKitTransactions": .integer(Int64(preview.cloudKitTransactions)),
                ])
        ]
    }
}
