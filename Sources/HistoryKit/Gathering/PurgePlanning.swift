import HistoryReading
import HistoryWrites

extension HistoryStore {
    /// Previews the purge `selection` makes and prepares it for ``PurgeExecutor``; whom it
    /// breaks is judged from `mergeState` (its actors, and the readers no file shows), as every
    /// command that previews a purge judges it.
    public func planPurge(_ selection: PurgeSelection, mergeState: MergeStateAnalysis, breakdown: Bool = false) throws
        -> PurgePlan
    {
        try planPurge(selection.query, mergeState: mergeState, breakdown: breakdown)
    }

    /// ``planPurge(_:mergeState:breakdown:)`` of the transactions matching `query`.
    public func planPurge(_ query: HistoryQuery, mergeState: MergeStateAnalysis, breakdown: Bool = false) throws
        -> PurgePlan
    {
        try planPurge(
            query, actors: mergeState.report?.actors ?? [], readers: mergeState.hiddenReaders, breakdown: breakdown)
    }
}
