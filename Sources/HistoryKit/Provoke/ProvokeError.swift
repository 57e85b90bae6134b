import HistoryReading

/// Why a provocation cannot be planned, executed or undone. Every case names the file.
public enum ProvokeError: MessageError, Sendable {
    /// The scenario does not apply to this store or actor.
    case notApplicable(path: String, reason: Message)
    /// Another process has the store open.
    case storeInUse(path: String)
    /// An earlier provocation's backups are still there.
    case earlierProvocation(path: String, folder: String)
    /// No provocation's backups to undo.
    case nothingToUndo(path: String, folder: String)
    /// A backup is missing or not what was copied.
    case damagedBackup(path: String, backup: String, reason: String)
    /// A file could not be copied or put back.
    case copyFailed(path: String, reason: String, outcome: Message)
    /// The provocation failed after it changed a file; the copies are kept.
    case failedAfterChange(path: String, cause: Message, folder: String)
    /// Something was written since the provocation, which undoing it would lose.
    case changedSince(path: String, drift: ProvokeBackup.Drift)

    public var message: Message {
        switch self {
        case .notApplicable(let p, let why): return "\(p): \(why)"
        case .storeInUse(let p):
            return
                """
                \(p): another process has the store open (the app, an extension, the simulator): quit it first, \
                or it writes its cached merge state back
                """
        case .earlierProvocation(let p, let folder):
            return
                """
                \(p): an earlier provocation's backups are in \(folder): put the store back with \
                \(Control.provokeUndo) first
                """
        case .nothingToUndo(let p, let folder): return "\(p): nothing to undo (no \(folder))"
        case .damagedBackup(let p, let backup, let why):
            return "\(p): the backup \(backup) \(why); nothing was put back"
        case .copyFailed(let p, let why, let outcome): return "\(p): \(why); \(outcome)"
        case .changedSince(let p, let drift):
            return
                """
                \(p): the store changed since it was provoked: undoing would lose \(drift.lost); nothing was put \
                back. 
                """
                    + "To put the files back anyway, losing that: \(Control.provokeUndoForce); "
                    + "to keep the store as it is, remove \(ProvokeBackup.folder(forStore: p))"
        case .failedAfterChange(let p, let cause, let folder):
            return
                """
                \(p): \(cause); the files it changed are copied in \(folder): put them back with \
                \(Control.provokeUndo)
                """
        }
    }
}
