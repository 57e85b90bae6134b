import HistoryReading

/// An input that could not be hashed, or that changed while cdhist read it.
public enum EvidenceError: MessageError, Equatable, Sendable {
    case unreadable(path: String, reason: String)
    /// The file's hash (or its presence) differs between the start and the end of the reading:
    /// another process wrote it meanwhile.
    case changedWhileReading(path: String, before: String?, after: String?)

    public var message: Message {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): cannot be hashed: \(reason)"
        case .changedWhileReading(let path, let before, let after):
            let what: String
            switch (before, after) {
            case (nil, _?): what = "appeared"
            case (_?, nil): what = "disappeared"
            default: what = "changed (SHA-256 \(before ?? "-") before, \(after ?? "-") after)"
            }
            return
                """
                \(path): \(what) while cdhist read it: another process wrote it (cdhist only reads); examine a \
                copy taken while no app runs
                """
        }
    }
}
