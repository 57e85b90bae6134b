/// Where a purge cuts: before a position the user gave, or where a cleaner's strategy cuts.
public enum PurgeCutoff: Sendable, Equatable {
    /// Transactions before `bound` (a date, a transaction number, a token's position); `rule`
    /// says it as the user gave it.
    case before(HistoryQuery.Bound, rule: String)
    /// The cut-off a cleaner computes from the actors' positions.
    case strategy(CleanerStrategy)
}

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
        var always = false
        if case .strategy = request.cutoff { always = true }
        return try make(
            store, cutoff: request.cutoff, narrowing: request.narrowing,
            mergeState: try store.mergeState(request.mergeState, always: always), breakdown: request.breakdown)
    }

    /// The proposal of a purge of `store` judged by merge state already gathered (a report
    /// that shows it beside other sections).
    public static func make(
        _ store: HistoryStore, cutoff: PurgeCutoff, narrowing: HistoryQuery, mergeState: MergeStateAnalysis,
        breakdown: Bool
    ) throws -> PurgeProposal {
        let selection: PurgeSelection
        switch cutoff {
        case .before(let bound, let rule):
            selection = PurgeSelection.before(bound, narrowing: narrowing, rule: rule)
        case .strategy(let strategy):
            guard let report = mergeState.report else { throw PurgeSelectionError.noCutoff(strategy) }
            selection = try PurgeSelection.strategy(strategy, report: report, narrowing: narrowing)
        }
        let plan = try store.planPurge(selection, mergeState: mergeState, breakdown: breakdown)
        return PurgeProposal(mergeState: mergeState, selection: selection, plan: plan)
    }
}
