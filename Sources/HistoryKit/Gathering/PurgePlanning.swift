import HistoryAnalysis
import HistoryReading
import HistoryWrites

extension PurgePlan {
    /// Previews the purge `selection` makes in `store` and prepares it for ``PurgeExecutor``;
    /// whom it breaks is judged from `mergeState` (its actors, and the readers no file shows), as
    /// every command that previews a purge judges it.
    public static func make(
        _ selection: PurgeSelection, in store: HistoryStore, mergeState: MergeStateAnalysis, breakdown: Bool = false
    ) throws -> PurgePlan {
        try make(selection.query, in: store, mergeState: mergeState, breakdown: breakdown)
    }

    /// The plan of the transactions matching `query`, judged from `mergeState` as above.
    public static func make(
        _ query: HistoryQuery, in store: HistoryStore, mergeState: MergeStateAnalysis, breakdown: Bool = false
    ) throws -> PurgePlan {
        try make(
            query, in: store, actors: mergeState.report?.actors ?? [], readers: mergeState.hiddenReaders,
            breakdown: breakdown)
    }
}
