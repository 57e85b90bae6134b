import HistoryReading

/// How two snapshots of one store's history differ: transactions only in the
/// old one (purged), only in the new one (added), and in both under the same
/// number but with other content (rewritten: a restored or replaced store);
/// and what the added transactions did to objects.
public struct HistoryDiff: Equatable, Sendable {
    /// A set of transactions, summed up.
    public struct Part: Equatable, Sendable {
        /// An end of the part: a transaction's number and time.
        public struct End: Equatable, Sendable {
            public var transactionNumber: Int64
            public var timestamp: Double?
        }

        /// Counts for one author (nil: transactions without one).
        public struct AuthorCount: Equatable, Sendable {
            public var author: String?
            public var transactions: Int
            public var changes: Int
        }

        /// Changes of one entity (its name, or `Z_ENT n` when the catalog lacks it).
        public struct EntityCount: Equatable, Sendable {
            public var entity: String
            public var changes: Int
        }

        public private(set) var transactions = 0
        public private(set) var changes = 0
        public private(set) var first: End?
        public private(set) var last: End?
        private var byAuthor: [String?: (transactions: Int, changes: Int)] = [:]
        private var byEntity: [String: Int] = [:]

        public init() {}

        /// Authors, most transactions first.
        public var authors: [AuthorCount] {
            byAuthor.map { AuthorCount(author: $0.key, transactions: $0.value.transactions, changes: $0.value.changes) }
                .sorted { ($0.transactions, $1.author ?? "") > ($1.transactions, $0.author ?? "") }
        }

        /// Entities, most changes first.
        public var entities: [EntityCount] {
            byEntity.map { EntityCount(entity: $0.key, changes: $0.value) }.sorted {
                ($0.changes, $1.entity) > ($1.changes, $0.entity)
            }
        }

        /// Adds `tx`, after those held, with its number of changes (their entities are added apart).
        mutating func add(_ tx: Transaction, changes count: Int) {
            transactions += 1
            changes += count
            let end = End(transactionNumber: tx.number, timestamp: tx.timestamp)
            if first == nil { first = end }
            last = end
            byAuthor[tx.author, default: (0, 0)].transactions += 1
            byAuthor[tx.author, default: (0, 0)].changes += count
        }

        /// Adds `count` changes to entity `entity`'s tally (their transactions are added apart).
        mutating func add(changes count: Int, of entity: String) {
            byEntity[entity, default: 0] += count
        }

        /// Adds `other`, which comes after what this part holds (its tallies as they are: no sorting).
        mutating func merge(_ other: HistoryDiff.Part) {
            guard other.transactions > 0 else { return }
            if first == nil { first = other.first }
            last = other.last ?? last
            transactions += other.transactions
            changes += other.changes
            for (author, count) in other.byAuthor {
                byAuthor[author, default: (0, 0)].transactions += count.transactions
                byAuthor[author, default: (0, 0)].changes += count.changes
            }
            for (entity, count) in other.byEntity { byEntity[entity, default: 0] += count }
        }

        public static func == (a: Part, b: Part) -> Bool {
            a.transactions == b.transactions && a.changes == b.changes && a.first == b.first && a.last == b.last
                && a.authors == b.authors && a.entities == b.entities
        }
    }

    /// What the added transactions did to the objects of one entity.
    public struct EntityEffect: Equatable, Sendable {
        /// Updated properties and how many objects had each updated.
        public struct PropertyCount: Equatable, Sendable {
            public var name: String
            public var objects: Int
        }

        public var entity: String
        /// Objects inserted (and not deleted again).
        public var inserted = 0
        /// Objects that existed before and were changed, not deleted.
        public var updated = 0
        /// Objects that existed before and were deleted.
        public var deleted = 0
        /// Objects inserted and deleted again.
        public var insertedAndDeleted = 0
        /// The properties of the updated objects, most objects first.
        public var properties: [PropertyCount] = []

        public init(entity: String) {
            self.entity = entity
        }
    }

    /// Transactions identical in both, counted.
    public struct Counts: Equatable, Sendable {
        public var transactions = 0
        public var changes = 0
    }

    /// The stores compared.
    public var oldStoreUUID: String
    public var newStoreUUID: String
    /// Transactions identical in both.
    public var unchanged = Counts()
    public var removed = Part()
    public var added = Part()
    /// Transactions in both under the same number with other content: the new content.
    public var rewritten = Part()
    /// The net effect of ``added`` on objects, by entity.
    public var effects: [EntityEffect] = []

    public var isIdentical: Bool { removed.transactions == 0 && added.transactions == 0 && rewritten.transactions == 0 }

    public init(oldStoreUUID: String, newStoreUUID: String) {
        self.oldStoreUUID = oldStoreUUID
        self.newStoreUUID = newStoreUUID
    }
}
