import HistoryReading
import HistoryWrites

/// What a purge preview is asked: where it cuts, the transactions it narrows to, where the
/// store's merge state is, and whether to count the deleted changes per author and entity.
public struct PurgeRequest: Sendable {
    public var cutoff: PurgeCutoff
    /// Name filters and `after`, narrowing the cut.
    public var narrowing: HistoryQuery
    public var mergeState: MergeStateRequest
    public var breakdown: Bool

    public init(cutoff: PurgeCutoff, narrowing: HistoryQuery, mergeState: MergeStateRequest, breakdown: Bool) {
        self.cutoff = cutoff
        self.narrowing = narrowing
        self.mergeState = mergeState
        self.breakdown = breakdown
    }
}

/// `purge`'s use case: what a purge would delete and whom it would break, as every command
/// that previews a purge judges it, ready for ``PurgeExecutor`` to execute.
public struct PurgeProposal {
    /// The merge state the actors and readers broken come from.
    public var mergeState: MergeStateAnalysis
    /// The transactions selected, with the rule that selected them.
    public var selection: PurgeSelection
    /// The preview, and what executing it needs.
    public var plan: PurgePlan

    /// Gathers `store`'s merge state (analysed also without a source for a strategy, which cuts
    /// by the actors), selects the transactions and plans their purge.
    public static func make(_ store: HistoryStore, _ request: PurgeRequest) throws -> PurgeProposal {
        try make(
            store, cutoff: request.cutoff, narrowing: request.narrowing,
            mergeState: try MergeStateAnalysis.gather(
                in: store, request.mergeState, always: request.cutoff.needsActors),
            breakdown: request.breakdown)
    }

    /// The proposal of a purge of `store` judged by merge state already gathered (a report
    /// that shows it beside other sections).
    public static func make(
        _ store: HistoryStore, cutoff: PurgeCutoff, narrowing: HistoryQuery, mergeState: MergeStateAnalysis,
        breakdown: Bool
    ) throws -> PurgeProposal {
        let selection = try PurgeSelection.of(cutoff, narrowing: narrowing, report: mergeState.report)
        let plan = try PurgePlan.make(selection, in: store, mergeState: mergeState, breakdown: breakdown)
        return PurgeProposal(mergeState: mergeState, selection: selection, plan: plan)
    }
}
