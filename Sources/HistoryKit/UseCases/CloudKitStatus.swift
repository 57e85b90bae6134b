import HistoryAnalysis
import HistoryReading

/// `cloudkit`'s use case: what CloudKit mirroring keeps in a store, its exporter's position
/// and what it still has to export; everything but the store is nil for a store that is not
/// mirrored.
public struct CloudKitStatus {
    public var store: HistoryStore
    public var state: MirroringState? = nil
    public var exporter: ActorReport? = nil
    public var changesAfterPosition: Int? = nil
    public var backlog: ExportBacklog? = nil

    /// Reads it all from one snapshot of `store` (every number agrees, even while the app writes),
    /// listing at most `objects` changed objects and `events` events.
    /// `nowIsGiven`: `now` is the user's `--now`, to which lags are measured.
    public static func read(_ store: HistoryStore, now: Double, nowIsGiven: Bool, objects: Int, events: Int) throws
        -> CloudKitStatus
    {
        try store.snapshot {
            guard let state = try MirroringState.read(in: store, recentEvents: events) else {
                return CloudKitStatus(store: store)
            }
            let exporter = try MergeStateAnalyzer(
                store: store, declared: [], batch: [], records: [], mirroring: state, now: now,
                nowIsGiven: nowIsGiven
            ).report().exporter
            return CloudKitStatus(
                store: store, state: state, exporter: exporter,
                changesAfterPosition: try exporter?.tokenNumber.map {
                    try store.countChanges(afterTransaction: $0)
                },
                backlog: try ExportBacklog.read(in: store, limit: objects))
        }
    }
}
