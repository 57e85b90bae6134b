/// The transaction of each change of a list in turn. A change list is in transaction order, so
/// the transactions are read ahead in windows of 4,096 numbers, in the list's direction,
/// in one select each: a select per transaction cost a compiled query each, a hundred times
/// the list's own read on a store of a million transactions. Memory stays bounded by a window.
public final class TransactionLookup {
    private let store: HistoryStore
    private let read: (Transaction) -> Void
    /// The transactions of the window read last, by number, and whether `read` saw each yet;
    /// a number of the window without one has no transaction (an orphan change's).
    private var cached: [Int64: (transaction: Transaction, told: Bool)] = [:]
    private var range: ClosedRange<Int64>?
    private var lastAsked: Int64?
    /// Numbers read at once.
    static let window: Int64 = 4096

    /// `read` sees each transaction once, when a change of the list first asks for it (its
    /// warnings are to be told once).
    public init(store: HistoryStore, read: @escaping (Transaction) -> Void = { _ in }) {
        self.store = store
        self.read = read
    }

    /// Transaction `number`; nil when it is not there (an orphan change's).
    public func transaction(_ number: Int64) throws -> Transaction? {
        defer { lastAsked = number }
        if range?.contains(number) != true {
            // Ahead of the list: below `number` when the list goes down.
            let down = lastAsked.map { number < $0 } ?? false
            let (low, lowOverflow) = number.subtractingReportingOverflow(down ? Self.window - 1 : 0)
            let (high, highOverflow) = number.addingReportingOverflow(down ? 0 : Self.window - 1)
            let window = (lowOverflow ? .min : low)...(highOverflow ? .max : high)
            cached.removeAll(keepingCapacity: true)
            let bounds = HistoryQuery.Bound.around(window)
            try store.forEachTransaction(HistoryQuery(after: bounds.after, before: bounds.before)) {
                cached[$0.number] = ($0, false)
            }
            range = window
        }
        guard let found = cached[number] else { return nil }
        if !found.told {
            cached[number]?.told = true
            read(found.transaction)
        }
        return found.transaction
    }
}
