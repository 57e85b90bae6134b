import Foundation
import GRDB
import GRDBSQLite
import HistoryReading

/// A purge's backup: SQLite's online backup of the store (WAL content included),
/// written under a temporary name and renamed when complete, so a backup file is never partial.
enum PurgeBackup {
    /// Copies `db`'s store to `backup`, checked with quick_check.
    static func write(_ db: Database, to backup: String, storePath: String) throws {
        let fm = FileManager.default
        guard !fm.fileExists(atPath: backup) else {
            throw RepairError.backupFailed(path: storePath, reason: "\(backup) already exists")
        }
        let temporary = backup + ".partial"
        // The temporary and what SQLite writes beside it; none is left when the backup fails.
        let leftovers = [temporary, temporary + "-journal", temporary + "-wal", temporary + "-shm"]
        // Created only if absent (O_EXCL): the name is this purge's, never another's being written.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let why =
                errno == EEXIST
                ? "\(temporary) exists: a purge that was stopped left it unfinished; remove it"
                : "creating \(temporary): \(FileAccess.reason(errno: errno))"
            throw RepairError.backupFailed(path: storePath, reason: why)
        }
        close(fd)
        var systemErrno: Int32 = 0
        var destination: DatabaseQueue?
        do {
            let queue = try DatabaseQueue(path: temporary)
            destination = queue
            try queue.writeWithoutTransaction { dest in
                do {
                    try db.backup(to: dest)
                } catch {
                    systemErrno = sqlite3_system_errno(dest.sqliteConnection)
                    throw error
                }
            }
            try queue.writeWithoutTransaction { dest in
                _ = try String.fetchAll(dest, sql: "PRAGMA journal_mode = DELETE")
                let check = try String.fetchOne(dest, sql: "PRAGMA quick_check") ?? ""
                guard check == "ok" else {
                    throw RepairError.backupFailed(path: storePath, reason: "backup check: \(check)")
                }
            }
            try queue.close()
            // The store's owner and permissions: a private store's backup is as private.
            if let store = FileStatus(storePath) {
                _ = chown(temporary, uid_t(store.owner), gid_t(store.group))
                _ = chmod(temporary, mode_t(store.permissions))
            }
            _ = try BackupName.place(temporary, at: backup, nextFree: false)
        } catch {
            try? destination?.close()
            for file in leftovers { try? fm.removeItem(atPath: file) }
            if let error = error as? RepairError { throw error }
            if (error as? POSIXError)?.code == .EEXIST {
                throw RepairError.backupFailed(path: storePath, reason: "\(backup) already exists")
            }
            throw RepairError.backupFailed(
                path: storePath, reason: "writing \(backup): \(WriteFault.cause(error, systemErrno: systemErrno))")
        }
    }

    /// Copies `backup` back over the store `queue` writes.
    static func restore(_ backup: String, into queue: DatabaseQueue) throws {
        let source = try DatabaseQueue(path: backup)
        try source.inDatabase { src in try queue.inDatabase { dst in try src.backup(to: dst) } }
        try source.close()
    }
}
