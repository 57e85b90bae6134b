import HistoryReading

/// Why a watch cannot go on (or start). Every case names the store.
public enum WatchError: MessageError, Equatable, Sendable {
    /// The store file is gone.
    case deleted(path: String)
    /// Another file (or another store) is in its place.
    case replaced(path: String, reason: String)
    /// A start (`tx:N`) names a transaction past the newest (nil: the store has none).
    case pastNewest(path: String, number: Int64, newest: Int64?)
    /// Reading a transaction's changes failed after part of it was handed out (printed).
    case readFailed(path: String, transaction: Int64, reason: String)

    public var message: Message {
        switch self {
        case .deleted(let path): return "\(path): the store was deleted"
        case .replaced(let path, let reason):
            return "\(path): the store was replaced (\(reason)); watch it again to follow the new one"
        case .pastNewest(let path, let number, let newest):
            let found = newest.map { "the newest is #\($0)" } ?? "the store has no transactions"
            return
                """
                \(path): no transaction #\(number) yet: \(found); give a number up to it, or no \
                \(Control.startAfter) to start after the newest
                """
        case .readFailed(let path, let number, let reason):
            return
                """
                \(path): reading the changes of #\(number) failed after part of them were shown (\(reason)); \
                watch again with \(Control.startAfter) tx:\(number &- 1) to see it whole
                """
        }
    }
}
