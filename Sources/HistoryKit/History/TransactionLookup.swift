/// The transaction of each change of a list in turn, read once for a run of changes of one
/// transaction (a change list is in transaction order, so each is read once).
public final class TransactionLookup {
    private let store: HistoryStore
    private var last: (number: Int64, transaction: Transaction?)?

    public init(store: HistoryStore) { self.store = store }

    /// Transaction `number`; nil when it is not there (an orphan change's).
    public func transaction(_ number: Int64) throws -> Transaction? {
        if let last, last.number == number { return last.transaction }
        let found = try store.transaction(number: number)
        last = (number, found)
        return found
    }
}
