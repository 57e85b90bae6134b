import HistoryReading

/// What an object's changes, read in order, say about its life: how many,
/// from when to when, where it was inserted and deleted. Fed one change at a
/// time, so any number of them fits.
public struct ObjectHistory: Equatable, Sendable {
    /// A transaction the summary points to.
    public struct Moment: Equatable, Sendable {
        public var transactionNumber: Int64
        public var timestamp: Double?
        public var author: String?

        public init(transactionNumber: Int64, timestamp: Double?, author: String?) {
            self.transactionNumber = transactionNumber
            self.timestamp = timestamp
            self.author = author
        }

        init(_ tx: Transaction) {
            self.init(transactionNumber: tx.number, timestamp: tx.timestamp, author: tx.author)
        }
    }

    public private(set) var changeCount = 0
    public private(set) var transactionCount = 0
    public private(set) var first: Moment?
    public private(set) var last: Moment?
    /// The first insert (nil when history holds none: purged, or made before tracking began).
    public private(set) var inserted: Moment?
    /// The last delete, when no insert follows it.
    public private(set) var deleted: Moment?
    /// The tombstone of ``deleted``.
    public private(set) var tombstone: [TombstoneEntry] = []
    private var lastTransaction: Int64?

    public init() {}

    /// Adds `change` of `transaction`; changes come in transaction, then change, order.
    public mutating func add(_ change: Change, of transaction: Transaction) {
        add(change.changeType, tombstone: change.tombstone, at: Moment(transaction))
    }

    /// Adds a change of type `type` (a delete leaving `tombstone`) made in the transaction
    /// `moment` stands for; changes come in transaction, then change, order.
    public mutating func add(_ type: ChangeType, tombstone: @autoclosure () -> [TombstoneEntry] = [], at moment: Moment)
    {
        if changeCount == 0 { first = moment }
        changeCount += 1
        if lastTransaction != moment.transactionNumber {
            transactionCount += 1
            lastTransaction = moment.transactionNumber
        }
        last = moment
        switch type {
        case .insert:
            if inserted == nil { inserted = moment }
            deleted = nil
            self.tombstone = []
        case .delete:
            deleted = moment
            self.tombstone = tombstone()
        case .update, .unknown:
            break
        }
    }

    /// Adds the changes `later` sums up, all made after these (the next part of a read in parts):
    /// the same as adding them one by one.
    public mutating func append(_ later: ObjectHistory) {
        guard later.changeCount > 0 else { return }
        if changeCount == 0 { first = later.first }
        changeCount += later.changeCount
        transactionCount += later.transactionCount - (later.first?.transactionNumber == lastTransaction ? 1 : 0)
        lastTransaction = later.lastTransaction
        last = later.last
        if inserted == nil { inserted = later.inserted }
        if later.deleted != nil {
            deleted = later.deleted
            tombstone = later.tombstone
        } else if later.inserted != nil {
            deleted = nil
            tombstone = []
        }
    }
}
