import HistoryAnalysis
import HistoryReading
import HistoryWrites

/// What a timeline is asked: the lanes, the time it spans, where the store's merge state is,
/// and the purge cut-off to mark.
public struct TimelineRequest: Sendable {
    /// Lanes by this field of the transactions.
    public var by: TransactionField
    /// The time drawn: its `after` and `before` (its other members are not used).
    public var span: HistoryQuery
    /// The merge state whose actors' positions are marked.
    public var mergeState: MergeStateRequest
    /// The purge cut-off to mark; nil: none. A cleaner's strategy is judged from the actors.
    public var cutoff: PurgeCutoff?

    public init(by: TransactionField, span: HistoryQuery, mergeState: MergeStateRequest, cutoff: PurgeCutoff?) {
        self.by = by
        self.span = span
        self.mergeState = mergeState
        self.cutoff = cutoff
    }
}

/// `timeline`'s use case: the store's transactions per lane over time, with the merge state
/// whose actors are marked on it and the purge cut-off, where it cuts.
public struct HistoryTimeline {
    /// The merge state gathered (its report is nil when no source gives one and no strategy needs it).
    public var mergeState: MergeStateAnalysis
    /// The transactions per lane and bucket.
    public var activity: ActivityTimeline
    /// Every transaction of the store, which the chart's layout sizes its counts by.
    public var transactionCount: Int
    /// The cut-off marked: the rule that selects, and the time it cuts at (nil when none is known).
    public var cutoff: (rule: String, timestamp: Double?)?

    /// Reads `store`'s timeline in as many buckets as `buckets` gives for its transaction count
    /// (a chart's width depends on the width of its counts).
    public static func read(_ store: HistoryStore, _ request: TimelineRequest, buckets: (Int) -> Int) throws
        -> HistoryTimeline
    {
        let analysis = try MergeStateAnalysis.gather(
            in: store, request.mergeState, always: request.cutoff?.needsActors == true)
        let selection = try request.cutoff.map {
            try PurgeSelection.of($0, narrowing: HistoryQuery(), report: analysis.report)
        }
        let count = try store.transactionCount()
        let span = HistoryQuery(after: request.span.after, before: request.span.before)
        return HistoryTimeline(
            mergeState: analysis,
            activity: try store.activityTimeline(bucketCount: buckets(count), by: request.by, range: span),
            transactionCount: count, cutoff: try selection.map { ($0.rule, try $0.timestamp(in: store)) })
    }
}
