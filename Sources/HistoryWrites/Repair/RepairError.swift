import HistoryReading

/// Why a repair was refused or failed. Every case names the file.
public enum RepairError: MessageError, Equatable, Sendable {
    /// The store, its folder or the plist cannot be written.
    case readOnly(path: String, reason: String)
    /// Another connection holds the store (a write lock did not clear in time).
    case busy(path: String, seconds: Double)
    /// Another cdhist purge of the store is running; `holder` is what its lock file says of it.
    case purgeRunning(path: String, holder: String)
    /// The preview would expire or break actors and expiring them was not allowed.
    case wouldBreakActors(path: String, actors: [String])
    /// A defaults repair would move `actor` past `count` transactions by others it has not
    /// merged, and skipping them was not allowed.
    case wouldSkipTransactions(path: String, actor: String, count: Int)
    /// The store changed since the preview (counts differ); nothing was deleted.
    case changedSincePreview(path: String, detail: String)
    /// The backup could not be written.
    case backupFailed(path: String, reason: String)
    /// The check after the purge failed; the store was restored from the backup.
    case verificationFailed(path: String, detail: String, restoredFrom: String?)
    /// A defaults repair cannot be done as asked.
    case invalidRepair(path: String, reason: Message)
    /// Writing `file` failed (disk full, file-size limit, I/O error); `outcome` says what that left.
    case writeFailed(path: String, file: String, cause: String, outcome: Message)
    /// The plist changed on disk since it was read (another process wrote it); nothing was written.
    case changedSinceRead(path: String)
    /// A signal stopped the repair at a safe point; `outcome` says what it left.
    case interrupted(path: String, signal: String, outcome: Message)

    public var message: Message {
        switch self {
        case .readOnly(let p, let why): return "\(p): cannot repair: \(why)"
        case .purgeRunning(let p, let holder):
            return "\(p): another purge of this store is running (\(holder)); wait for it to finish"
        case .busy(let p, let s):
            return
                """
                \(p): in use by another process (still locked after \(s) s): the app, the simulator or another \
                purge; quit it or wait for it, and try again
                """
        case .wouldBreakActors(let p, let actors):
            return
                """
                \(p): this purge would break \(actors.joined(separator: ", ")); give \(Control.allowExpire) to \
                purge anyway
                """
        case .wouldSkipTransactions(let p, let actor, let count):
            return
                """
                \(p): this move makes \(actor) skip \(count) transaction\(count == 1 ? "" : "s") by others it has \
                not merged: it would never merge them; 
                """
                    + """
                    move it with \(Control.moveToOldest) or \(Control.removePosition) to have it merge them, or give \
                    \(Control.allowSkip) to move it anyway
                    """
        case .changedSincePreview(let p, let d):
            return "\(p): the store changed since the preview (\(d)); nothing was deleted"
        case .backupFailed(let p, let why): return "\(p): backup failed (\(why)); nothing was changed"
        case .verificationFailed(let p, let d, let backup):
            if let backup { return "\(p): check after the purge failed (\(d)); the store was restored from \(backup)" }
            return
                """
                \(p): check after the purge failed (\(d)); there was no backup (\(Control.noBackup)): restore \
                your own copy
                """
        case .invalidRepair(let p, let why): return "\(p): \(why)"
        case .writeFailed(let p, let file, let cause, let outcome):
            return file == p
                ? "\(p): cannot write it (\(cause)); \(outcome)" : "\(p): cannot write \(file) (\(cause)); \(outcome)"
        case .interrupted(let p, let signal, let outcome):
            return "\(p): interrupted by \(signal); \(outcome)"
        case .changedSinceRead(let p):
            return
                """
                \(p): it changed since cdhist read it (another process wrote it); nothing was written: quit the \
                app and try again
                """
        }
    }
}
