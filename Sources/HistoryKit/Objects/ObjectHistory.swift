/// What an object's changes, read in order, say about its life: how many,
/// from when to when, where it was inserted and deleted. Fed one change at a
/// time, so any number of them fits.
public struct ObjectHistory: Equatable, Sendable {
    /// A transaction the summary points to.
    public struct Moment: Equatable, Sendable {
        public var transactionNumber: Int64
        public var timestamp: Double?
        public var author: String?

        init(_ tx: Transaction) {
            transactionNumber = tx.number
            timestamp = tx.timestamp
            author = tx.author
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
        let moment = Moment(transaction)
        if changeCount == 0 { first = moment }
        changeCount += 1
        if lastTransaction != transaction.number {
            transactionCount += 1
            lastTransaction = transaction.number
        }
        last = moment
        switch change.changeType {
        case .insert:
            if inserted == nil { inserted = moment }
            deleted = nil
            tombstone = []
        case .delete:
            deleted = moment
            tombstone = change.tombstone
        case .update, .unknown:
            break
        }
    }
}
