/// Why a store could not be opened or read. Every case names the file.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing exists at the path.
    case fileNotFound(path: String)
    /// The path is a directory.
    case isDirectory(path: String)
    /// The file cannot be read (permissions).
    case unreadable(path: String, reason: String)
    /// The file is not an SQLite database (wrong magic, empty, too short).
    case notSQLite(path: String, reason: String)
    /// The file is shorter than its header says it is.
    case truncated(path: String, expectedBytes: Int64, actualBytes: Int64)
    /// SQLite reports the database as damaged.
    case corrupt(path: String, reason: String)
    /// A valid SQLite database without Core Data's tables.
    case notCoreData(path: String, missing: [String])
    /// A Core Data store whose history tracking was never enabled.
    case historyNotEnabled(path: String)
    /// The history tables exist but lack columns Core Data always creates.
    case unexpectedSchema(path: String, reason: String)
    /// Another process holds a lock that did not clear within the timeout.
    case locked(path: String, seconds: Double)
    /// A read was interrupted (Ctrl-C).
    case interrupted(path: String)
    /// The store was closed (a purge executed on it); open it again to read it.
    case closed(path: String)
    /// Any other SQLite failure.
    case sqlite(path: String, message: String)
    /// A private snapshot could not be made.
    case snapshotFailed(path: String, reason: String)
    /// As it was after a save, the store is partial and not one database SQLite can read.
    case unreadablePartialSave(path: String, save: Int, reason: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .fileNotFound(let p), .isDirectory(let p), .unreadable(let p, _), .notSQLite(let p, _),
            .truncated(let p, _, _), .corrupt(let p, _), .notCoreData(let p, _), .historyNotEnabled(let p),
            .unexpectedSchema(let p, _), .locked(let p, _), .interrupted(let p), .closed(let p), .sqlite(let p, _),
            .snapshotFailed(let p, _),
            .unreadablePartialSave(let p, _, _):
            return p
        }
    }

    public var description: String {
        switch self {
        case .fileNotFound(let p):
            return "\(p): no such file"
        case .isDirectory(let p):
            return "\(p): is a directory, not a store file"
        case .unreadable(let p, let why):
            return "\(p): cannot be read (\(why))"
        case .notSQLite(let p, let why):
            return "\(p): not an SQLite database (\(why))"
        case .truncated(let p, let expected, let actual):
            return "\(p): truncated SQLite database (header declares \(expected) bytes, file has \(actual))"
        case .corrupt(let p, let why):
            return "\(p): corrupt SQLite database (\(why))"
        case .notCoreData(let p, let missing):
            return "\(p): SQLite database but not a Core Data store (no \(missing.joined(separator: ", ")) table)"
        case .historyNotEnabled(let p):
            return
                """
                \(p): Core Data store without persistent history (no ATRANSACTION/ACHANGE tables; \
                NSPersistentHistoryTrackingKey was never enabled)
                """
        case .unexpectedSchema(let p, let why):
            return "\(p): history tables are not as Core Data writes them (\(why))"
        case .locked(let p, let seconds):
            return "\(p): locked by another process (still busy after \(Self.format(seconds)) s)"
        case .interrupted(let p):
            return "\(p): interrupted"
        case .closed(let p):
            return "\(p): the store was closed to be written; open it again"
        case .sqlite(let p, let message):
            return "\(p): SQLite error: \(message)"
        case .snapshotFailed(let p, let why):
            return "\(p): cannot make a private snapshot copy (\(why))"
        case .unreadablePartialSave(let p, let save, let why):
            return
                """
                \(p): as it was after save \(save) it is partial (\(why)), so that SQLite cannot read it as one \
                database; 
                """
                    + "the saves whose state is exact can be read"
        }
    }

    /// The wait, which StoreConnection clamps to 0…86,400 s (whole seconds without a fraction).
    private static func format(_ s: Double) -> String {
        s == s.rounded() ? s.wholeDescription : String(s)
    }
}

/// Something worth telling about how the store was opened; not an error.
public enum StoreNotice: Equatable, Sendable, CustomStringConvertible {
    /// `-wal` exists but `-shm` does not (often a copy that lost its `-shm`).
    case walWithoutShm(path: String)
    /// `-shm` exists but `-wal` does not: the WAL may have been lost when copying.
    case shmWithoutWal(path: String)
    /// The store was read from a private copy in a temporary directory.
    case readFromSnapshot(path: String, reason: String)
    /// A value in `Z_METADATA` or `Z_PRIMARYKEY` is not of the type Core Data writes.
    case unexpectedValue(path: String, detail: String)
    /// `-wal` holds nothing SQLite can read (no whole frame, or a damaged header): only the main file was read.
    case walUnusable(path: String, reason: String)
    /// A damaged frame in the `-wal` hides the commits after it from SQLite, and so from the store.
    case walDamaged(path: String, hidden: WALLog.HiddenFrames)

    /// Whether it warns of something the reader of any output should know (the store read is
    /// not all the files hold), rather than notes how the files were read.
    public var isWarning: Bool {
        if case .walDamaged = self { return true }
        return false
    }

    public var description: String { message.description }

    /// What it says, pointing at the controls that show more.
    public var message: Message {
        switch self {
        case .walWithoutShm(let p):
            return "\(p)-wal is present without \(p)-shm"
        case .shmWithoutWal(let p):
            return
                "\(p)-shm is present without \(p)-wal: if the store was copied, its newest transactions may be missing"
        case .readFromSnapshot(let p, let why):
            return
                "\(p): read from a private snapshot copy in a temporary directory (\(why)); the original is untouched"
        case .unexpectedValue(let p, let detail):
            return "\(p): \(detail)"
        case .walUnusable(let p, let why):
            return "\(p)-wal \(why): only the main file was read"
        case .walDamaged(let p, let h):
            return "\(p)-wal is damaged: \(h.sentence); \(Control.listSaves) lists the saves it reads and the damage"
        }
    }
}

extension StoreError {
    /// Whether it says the files do not make one database (what a state a checkpoint overwrote may be).
    package var isDamage: Bool {
        switch self {
        case .corrupt, .notSQLite, .notCoreData, .historyNotEnabled, .unexpectedSchema, .truncated,
            .unreadablePartialSave:
            return true
        default: return false
        }
    }

    /// The same error about `name`, for a file read under another path (a backup's hashed file).
    func renamed(from readPath: String, to name: String) -> StoreError {
        switch self {
        case .fileNotFound(let p) where p == readPath: return .fileNotFound(path: name)
        case .isDirectory(let p) where p == readPath: return .isDirectory(path: name)
        case .unreadable(let p, let why) where p == readPath: return .unreadable(path: name, reason: why)
        case .notSQLite(let p, let why) where p == readPath: return .notSQLite(path: name, reason: why)
        case .truncated(let p, let e, let a) where p == readPath:
            return .truncated(path: name, expectedBytes: e, actualBytes: a)
        case .corrupt(let p, let why) where p == readPath: return .corrupt(path: name, reason: why)
        default: return self
        }
    }
}
