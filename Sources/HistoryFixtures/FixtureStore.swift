import HistoryKit

/// A store to write: a model, history, and the shape of the file. Everything
/// is explicit so the same description always gives the same bytes.
public struct FixtureStore: Sendable {
    /// One transaction to record.
    public struct Transaction: Sendable {
        public var timestamp: Double
        public var author: String?
        public var contextName: String?
        public var bundleID: String?
        public var processID: String?
        public var changes: [Change]

        /// Describes a transaction; absent strings are stored as NULL.
        public init(
            timestamp: Double, author: String? = nil, contextName: String? = nil, bundleID: String? = nil,
            processID: String? = nil, changes: [Change]
        ) {
            self.timestamp = timestamp
            self.author = author
            self.contextName = contextName
            self.bundleID = bundleID
            self.processID = processID
            self.changes = changes
        }
    }

    /// One change to record.
    public struct Change: Sendable {
        public var entity: String
        public var primaryKey: Int64
        public var type: ChangeType
        /// Updated property names (their slots' bits are set), for updates.
        public var updated: [String]
        /// Raw ZCOLUMNS to write instead of the computed bitmap (to test bad input).
        public var rawColumns: [UInt8]?
        /// Preserved attribute name → value, for deletes.
        public var tombstone: [String: StoredValue]
        /// Raw `ZENTITY` to write instead of the entity's number (to test bad input).
        public var rawEntityNumber: Int64?

        /// Describes a change of `entity`'s object `primaryKey`.
        public init(
            entity: String, primaryKey: Int64, type: ChangeType, updated: [String] = [],
            rawColumns: [UInt8]? = nil, tombstone: [String: StoredValue] = [:], rawEntityNumber: Int64? = nil
        ) {
            self.entity = entity
            self.primaryKey = primaryKey
            self.type = type
            self.updated = updated
            self.rawColumns = rawColumns
            self.tombstone = tombstone
            self.rawEntityNumber = rawEntityNumber
        }
    }

    /// An object's current row in its root entity's table.
    public struct Row: Sendable {
        public var entity: String
        public var primaryKey: Int64
        /// Attribute values, and to-one relationships' keys, by property name.
        public var values: [String: StoredValue]
        /// Many-to-many relationships: the keys of the objects on the other side, by property name.
        public var links: [String: [Int64]]
        /// `Z_OPT`.
        public var version: Int64

        public init(
            entity: String, primaryKey: Int64, values: [String: StoredValue] = [:], links: [String: [Int64]] = [:],
            version: Int64 = 1
        ) {
            self.entity = entity
            self.primaryKey = primaryKey
            self.values = values
            self.links = links
            self.version = version
        }
    }

    /// One step after the history is written, each save its own commit in the `-wal` (which is
    /// never checkpointed unless a step says so): the saves of a running app, with the store's
    /// rows changing as history records.
    public enum SaveStep: Sendable {
        case save(Save)
        /// A reader takes a snapshot and keeps it to the end; a checkpoint then copies every
        /// frame so far into the main file. The log cannot restart while the reader holds it, so
        /// later saves follow in it: the states before the checkpoint are only partly rebuilt.
        case checkpointHoldingAReader
        /// A checkpoint copies every frame into the main file, no reader holding the log: the next
        /// save restarts the log from its first frame, and the older frames beyond it remain.
        case checkpoint
    }

    /// One commit: an optional history transaction and the row changes it records.
    public struct Save: Sendable {
        public var transaction: Transaction?
        /// Rows inserted.
        public var inserted: [Row]
        /// Values set on existing rows (entity, key, values by property name).
        public var updated: [Row]
        /// Rows deleted (entity and key; other fields unused).
        public var deleted: [Row]
        /// Transactions deleted in this commit (a purge).
        public var purge: ClosedRange<Int64>?

        public init(
            transaction: Transaction? = nil, inserted: [Row] = [], updated: [Row] = [], deleted: [Row] = [],
            purge: ClosedRange<Int64>? = nil
        ) {
            self.transaction = transaction
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
            self.purge = purge
        }
    }

    /// SQLite journal mode of the written file.
    public enum JournalMode: Sendable {
        /// Core Data's default; the last transactions can be left in the `-wal`.
        case wal(keepInWAL: Int)
        case rollback
    }

    public var model: ManagedObjectModel
    public var storeUUID: String
    public var frameworkVersion: Int64
    public var tombstoneColumnCount: Int
    public var writesModelCache: Bool
    public var historyEnabled: Bool
    public var journalMode: JournalMode
    public var transactions: [Transaction]
    /// Transaction numbers to delete after writing (simulating a purge).
    public var purgedTransactions: ClosedRange<Int64>?
    /// Rows of the entity tables (none: history only); with rows, many-to-many
    /// relationships get their join tables.
    public var rows: [Row]
    /// Steps after everything else, in WAL mode (none: the files are left as written).
    public var saveSteps: [SaveStep] = []

    /// Describes a store; defaults match a modern Core Data store in WAL mode.
    public init(
        model: ManagedObjectModel, storeUUID: String, frameworkVersion: Int64 = 1345,
        tombstoneColumnCount: Int = 4, writesModelCache: Bool = true, historyEnabled: Bool = true,
        journalMode: JournalMode = .wal(keepInWAL: 0), transactions: [Transaction],
        purgedTransactions: ClosedRange<Int64>? = nil, rows: [Row] = []
    ) {
        self.model = model
        self.storeUUID = storeUUID
        self.frameworkVersion = frameworkVersion
        self.tombstoneColumnCount = tombstoneColumnCount
        self.writesModelCache = writesModelCache
        self.historyEnabled = historyEnabled
        self.journalMode = journalMode
        self.transactions = transactions
        self.purgedTransactions = purgedTransactions
        self.rows = rows
    }

    /// Entity numbers as Core Data assigns them: roots in name order, each
    /// followed by its subentities (depth first, in name order).
    public var entityNumbers: [(name: String, number: Int64, superNumber: Int64)] {
        var result: [(String, Int64, Int64)] = []
        func visit(_ name: String, parent: Int64) {
            result.append((name, Int64(result.count + 1), parent))
            let me = Int64(result.count)
            for child in model.subentityNames(of: name).sorted() { visit(child, parent: me) }
        }
        for root in model.entities
        where root.superentityName == nil || model.entity(named: root.superentityName ?? "") == nil {
            visit(root.name, parent: 0)
        }
        return result
    }
}
