import GRDB
import HistoryAnalysis
import HistoryReading
import HistoryWrites

/// What migrating the store to a next model does to its history. When the next
/// model removes an entity that history still names, Core Data truncates history
/// at the migration ("Persistent History has to be truncated due to the
/// following entities being removed"): the transactions up to the newest one
/// naming a removed entity go, as a purge before the next transaction would,
/// and every actor whose position lies in them fails with 134301 afterwards.
public struct MigrationTruncation: Sendable {
    /// An entity history names that the next model does not have.
    public struct RemovedEntity: Equatable, Sendable {
        public var name: String
        /// `Z_ENT` in this store.
        public var entityNumber: Int64
        /// Changes to it in history.
        public var changes: Int
        /// The newest transaction with a change to it.
        public var newestTransaction: Int64
    }

    /// Removed entities, by name.
    public var removed: [RemovedEntity]
    /// What the truncation deletes and breaks (nil when nothing is removed): a
    /// purge before the transaction after the newest one naming a removed entity.
    public var preview: PurgePreview?
}

extension MigrationTruncation {
    /// The entities `store`'s history names that `next` lacks, and what truncating history
    /// for them deletes and breaks among `actors` (from ``MergeStateAnalyzer``).
    public static func find(in store: HistoryStore, to next: ManagedObjectModel, actors: [ActorReport]) throws
        -> MigrationTruncation
    {
        let kept = Set(next.entities.map(\.name))
        let named = try store.read { db -> [(number: Int64, changes: Int, newest: Int64)] in
            var rows: [(Int64, Int, Int64)] = []
            var ignored: String?
            try db.forEachRow("SELECT ZENTITY, COUNT(*), MAX(ZTRANSACTIONID) FROM ACHANGE GROUP BY ZENTITY") { row in
                if let number = row.integer(0, problem: &ignored) {
                    rows.append((number, Int(row.int64(1)), row.int64(2)))
                }
            }
            return rows
        }
        let removed = named.compactMap { e -> MigrationTruncation.RemovedEntity? in
            guard let name = store.catalog.entity(number: e.number)?.name, !kept.contains(name) else { return nil }
            return MigrationTruncation.RemovedEntity(
                name: name, entityNumber: e.number, changes: e.changes, newestTransaction: e.newest)
        }.sorted { $0.name < $1.name }
        guard let newest = removed.map(\.newestTransaction).max(), newest < .max else {
            return MigrationTruncation(removed: removed, preview: nil)
        }
        let preview = try PurgePreview.make(
            HistoryQuery(before: .transaction(newest + 1)), in: store, actors: actors, readers: [])
        return MigrationTruncation(removed: removed, preview: preview)
    }
}
