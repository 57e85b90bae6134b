/// The transaction of each change of a list in turn, read once for a run of changes of one
/// transaction (a change list is in transaction order, so each is read once).
public final class TransactionLookup {
    private let store: HistoryStore
    private let read: (Transaction) -> Void
    private var last: (number: Int64, transaction: Transaction?)?

    /// `read` sees each transaction once, when it is read (its warnings are to be told once).
    public init(store: HistoryStore, read: @escaping (Transaction) -> Void = { _ in }) {
        self.store = store
        self.read = read
    }

    /// Transaction `number`; nil when it is not there (an orphan change's).
    public func transaction(_ number: Int64) throws -> Transaction? {
        if let last, last.number == number { return last.transaction }
        let found = try store.transaction(number: number)
        last = (number, found)
        if let found { read(found) }
        return found
    }
}
