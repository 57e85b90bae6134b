import HistoryReading

/// One save still in the `-wal` (one commit), and what it changed: the history transactions it
/// added (and any it removed, as a purge does), and the rows of each entity it inserted, updated
/// and deleted.
public struct SaveSummary: Sendable {
    /// Rows of one entity (or one other table) a save changed.
    public struct RowCounts: Equatable, Sendable {
        /// The entity's name (a table's, for rows outside the entities).
        public var name: String
        public var inserted = 0
        public var updated = 0
        public var deleted = 0
        public var total: Int { inserted + updated + deleted }
    }

    /// What a save changed: read from the pages before and after it.
    public struct Changes: Sendable {
        /// The history transactions it added, by number, in order.
        public var transactionsAdded: [Int64]
        /// The history transactions it removed (a purge), by number, in order.
        public var transactionsRemoved: [Int64]
        public var changesAdded: Int
        public var changesRemoved: Int
        /// Rows of each entity it changed, in the order of the entities' names.
        public var entities: [RowCounts]
        /// Rows of other tables it changed (many-to-many links, Core Data's and CloudKit's own
        /// bookkeeping), by table name; the history tables are counted above.
        public var otherTables: [RowCounts]
        /// The objects whose rows it deleted (their entity named as ``entities`` names it), in order.
        public var deletedObjects: [ObjectReference] = []
    }

    /// The commit: its number (the save's), frames and pages.
    public var commit: WALLog.Commit
    /// Whether the stores before and after it can be rebuilt exactly (``SaveExactness``), and if not, why.
    public var exact: Bool
    public var why: String?
    /// What the pages before and after it differ by, exact or not. Of a partial save they differ by
    /// what a checkpoint overwrote too: recover and `--values` read them and mark what they give.
    var read: Changes

    /// What it changed; nil for a partial save, whose changes are not known (its pages differ by
    /// what a checkpoint overwrote as well, so counting them would invent changes).
    public var changes: Changes? { exact ? read : nil }

    /// It changed rows of entities without recording a history transaction (a save without
    /// history tracking, a batch operation, a migration).
    /// Only an exact save says so: a partial one's rows are not known.
    public var changesEntitiesWithoutHistory: Bool {
        changes.map { $0.transactionsAdded.isEmpty && $0.entities.contains { $0.total > 0 } } ?? false
    }
}

/// Frames of a log that no commit holds: a save that never finished, or an earlier generation.
public struct LooseFrames: Equatable, Sendable {
    public var firstFrame: Int
    public var lastFrame: Int
    /// The pages they hold (each once).
    public var pages: Int
    /// Commit frames among them (an earlier generation's commits).
    public var commits: Int
    /// For an earlier generation: its salts.
    public var salts: (UInt32, UInt32)?

    public static func == (a: LooseFrames, b: LooseFrames) -> Bool {
        a.firstFrame == b.firstFrame && a.lastFrame == b.lastFrame && a.pages == b.pages && a.commits == b.commits
            && a.salts?.0 == b.salts?.0 && a.salts?.1 == b.salts?.1
    }
}
