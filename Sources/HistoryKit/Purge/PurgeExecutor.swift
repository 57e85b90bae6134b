import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite

/// Deletes history the way `deleteHistory(before:)` does, safely: backup
/// first (SQLite's online backup, WAL content included), one SQLite
/// transaction, `Z_PRIMARYKEY` and every other table untouched, then
/// `PRAGMA quick_check` and the counts, restoring the backup on failure.
public enum PurgeExecutor {
    /// Executes `plan` on the store it was planned on. That store is closed first, and
    /// with it this process's read-only connection to the files (it would share a read-only
    /// `-shm` mapping with the writer); open it again to read it afterwards. `progress`
    /// receives status lines.
    public static func execute(_ plan: PurgePlan, options: PurgeOptions, progress: (String) -> Void = { _ in }) throws -> PurgeResult {
        let path = plan.store.path
        plan.store.close()
        let preview = plan.preview
        let sql = plan.sql
        try checkWritable(path)
        let bytesBefore = fileBytes(path)
        let fm = FileManager.default
        let hadWAL = fm.fileExists(atPath: path + "-wal"), hadSHM = fm.fileExists(atPath: path + "-shm")
        var config = Configuration()
        config.busyMode = .timeout(OpenOptions.clampedBusyTimeout(options.busyTimeout))
        config.allowsUnsafeTransactions = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError {
            removeCreated(path, hadWAL: hadWAL, hadSHM: hadSHM)
            throw mapOpen(error, path: path, timeout: options.busyTimeout)
        }
        defer { try? queue.close() }
        let backup: String?
        switch options.backup {
        case .besideStore: backup = defaultBackupPath(for: path)
        case .at(let p): backup = p
        case .skip: backup = nil
        }
        var result = PurgeResult(backupPath: backup, deletedTransactions: 0, deletedChanges: 0, prunedStrings: 0,
                                 vacuumed: false, bytesBefore: bytesBefore, bytesAfter: bytesBefore)
        var wroteBackup = false
        var failureErrno: Int32 = 0
        var walBefore: WALLength?
        do {
        try queue.inDatabase { db in
            // Fail early, and clearly, when another connection is writing.
            do {
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                throw RepairError.busy(path: path, seconds: options.busyTimeout)
            }
            if hadWAL { walBefore = WALLength(path + "-wal", db) }
            // One read snapshot covers the check, the backup and the delete: if another
            // connection commits in between, upgrading to a write fails and nothing changes.
            try db.execute(sql: "BEGIN DEFERRED")
            do {
                try verifyUnchanged(db, sql: sql, preview: preview, path: path)
                if let backup {
                    progress("backing up to \(backup)")
                    try writeBackup(db, to: backup, storePath: path)
                    wroteBackup = true
                }
                FaultInjection.point("after-backup")
                progress("deleting \(plural(preview.transactionCount, "transaction")) and \(plural(preview.changeCount, "change"))")
                // By ranges of numbers when the selection is a few runs (verified above to be exactly
                // the matching transactions): no set of numbers to build, index ranges only.
                let deletes: [(changes: String, transactions: String, arguments: StatementArguments)] = preview.ranges.map { ranges in
                    ranges.map { ("DELETE FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ?", "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?",
                                  [$0.lowerBound, $0.upperBound]) }
                } ?? [("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (\(sql.matching))", "DELETE FROM ATRANSACTION WHERE Z_PK IN (\(sql.matching))",
                       sql.arguments)]
                do {
                    for d in deletes {
                        try db.execute(sql: d.changes, arguments: d.arguments)
                        result.deletedChanges += db.changesCount
                    }
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                    throw RepairError.busy(path: path, seconds: options.busyTimeout)
                }
                FaultInjection.point("mid-delete")
                for d in deletes {
                    try db.execute(sql: d.transactions, arguments: d.arguments)
                    result.deletedTransactions += db.changesCount
                }
                guard result.deletedChanges == preview.changeCount, result.deletedTransactions == preview.transactionCount else {
                    throw RepairError.changedSincePreview(
                        path: path, detail: "deleted \(plural(result.deletedTransactions, "transaction")) and \(plural(result.deletedChanges, "change")), the preview said \(preview.transactionCount) and \(preview.changeCount)")
                }
                if options.pruneStrings, let prune = sql.pruneStrings {
                    try db.execute(sql: prune)
                    result.prunedStrings = db.changesCount
                }
                FaultInjection.point("before-commit")
                try db.execute(sql: "COMMIT")
            } catch {
                failureErrno = sqlite3_system_errno(db.sqliteConnection)
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        } catch {
            // Nothing was deleted (a commit that failed is rolled back): the folder is left as it was.
            let unchanged = (try? queue.inDatabase { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") })
                == preview.transactionCount + preview.survivingTransactions
            let written = (try? queue.inDatabase { try String.fetchOne($0, sql: "PRAGMA journal_mode") })?.lowercased() == "wal" ? path + "-wal" : path
            if unchanged {
                if let backup, wroteBackup { try? fm.removeItem(atPath: backup) }
                if let walBefore { queue.inDatabase { walBefore.restore($0) } }
                // Closing the last connection would checkpoint the -wal into the main file and remove it.
                if hadWAL { queue.inDatabase { _ = cdhist_sqlite_no_checkpoint_on_close(UnsafeMutableRawPointer($0.sqliteConnection)) } }
                try? queue.close()
                removeCreated(path, hadWAL: hadWAL, hadSHM: hadSHM)
            }
            guard let error = error as? DatabaseError, WriteFault.isWriteFailure(error) else { throw error }
            throw RepairError.writeFailed(
                path: path, file: written, cause: WriteFault.cause(error, systemErrno: failureErrno),
                outcome: unchanged ? "nothing was deleted" : "the store may have changed: check it with \(Control.showStoreInfo)" + (wroteBackup ? " and restore \(backup ?? "") if needed" : ""))
        }
        FaultInjection.point("after-commit")
        try verify(queue, path: path, preview: preview, backup: backup)
        if options.vacuum {
            progress("VACUUM (rewrites the file so it shrinks)")
            try queue.inDatabase { db in
                do {
                    try db.execute(sql: "VACUUM")
                    _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                } catch let error as DatabaseError where WriteFault.isWriteFailure(error) {
                    throw RepairError.writeFailed(path: path, file: path, cause: WriteFault.cause(error, systemErrno: sqlite3_system_errno(db.sqliteConnection)),
                                                  outcome: "the purge was committed, VACUUM was not (the file did not shrink)")
                }
            }
            result.vacuumed = true
            try verify(queue, path: path, preview: preview, backup: backup)
        }
        try queue.close()
        result.bytesAfter = fileBytes(path)
        return result
    }

    /// `<store>.cdhist-backup-<yyyyMMdd-HHmmss>` beside the store.
    public static func defaultBackupPath(for path: String, date: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        let base = "\(path).cdhist-backup-\(f.string(from: date))"
        // A second repair in the same second gets the next free name, never the first one's backup.
        let fm = FileManager.default
        var candidate = base
        var n = 2
        while fm.fileExists(atPath: candidate) || fm.fileExists(atPath: candidate + ".partial") {
            candidate = "\(base)-\(n)"
            n += 1
        }
        return candidate
    }

    /// After a purge that changed nothing: removes the -wal and -shm that opening the store
    /// created, unless another process has the store open (they are its then).
    private static func removeCreated(_ path: String, hadWAL: Bool, hadSHM: Bool) {
        let fm = FileManager.default
        guard !(hadWAL && hadSHM), !StoreConnection.hasLiveConnection(shm: path + "-shm") else { return }
        if !hadWAL { try? fm.removeItem(atPath: path + "-wal") }
        if !hadSHM { try? fm.removeItem(atPath: path + "-shm") }
    }

    static func checkWritable(_ path: String) throws {
        let fm = FileManager.default
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        for (file, what) in [(path, "the store file is read-only"), (dir, "its folder is read-only (SQLite needs to write -wal and -shm beside it)")] {
            let mode = ((try? fm.attributesOfItem(atPath: file))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            if mode & 0o222 == 0 || access(file, W_OK) != 0 { throw RepairError.readOnly(path: path, reason: what) }
        }
        for suffix in ["-wal", "-shm"] where fm.fileExists(atPath: path + suffix) {
            let mode = ((try? fm.attributesOfItem(atPath: path + suffix))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            if mode & 0o222 == 0 { throw RepairError.readOnly(path: path, reason: "\(path)\(suffix) is read-only") }
        }
    }

    private static func mapOpen(_ error: DatabaseError, path: String, timeout: Double) -> Error {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return RepairError.busy(path: path, seconds: timeout)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN: return RepairError.readOnly(path: path, reason: error.message ?? "\(error.resultCode)")
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_PERM:
            return RepairError.writeFailed(path: path, file: path, cause: WriteFault.cause(error), outcome: "nothing was deleted")
        default: return StoreError.sqlite(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }

    private static func verifyUnchanged(_ db: Database, sql: PurgeSQL, preview: PurgePreview, path: String) throws {
        // Counted from the selection itself (a date cut-off counts down the timestamp index), not by
        // looking each selected number up again.
        let tx = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql.matching))", arguments: sql.arguments) ?? 0
        let all = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? 0
        // The ranges hold the matching transactions and nothing else.
        var inRanges = tx
        if let ranges = preview.ranges {
            inRanges = 0
            let count = try db.makeStatement(sql: "SELECT COUNT(*) FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?")
            for r in ranges { inRanges += try Int.fetchOne(count, arguments: [r.lowerBound, r.upperBound]) ?? 0 }
        }
        guard tx == preview.transactionCount, inRanges == tx, all == preview.transactionCount + preview.survivingTransactions else {
            throw RepairError.changedSincePreview(path: path, detail: "\(tx) of \(all) transactions match now; the preview saw \(preview.transactionCount) of \(preview.transactionCount + preview.survivingTransactions)")
        }
    }

    /// Writes the backup under a temporary name and renames it when complete,
    /// so a backup file is never partial.
    private static func writeBackup(_ db: Database, to backup: String, storePath: String) throws {
        let fm = FileManager.default
        guard !fm.fileExists(atPath: backup) else {
            throw RepairError.backupFailed(path: storePath, reason: "\(backup) already exists")
        }
        let temporary = backup + ".partial"
        // The temporary and what SQLite writes beside it; none is left when the backup fails.
        let leftovers = [temporary, temporary + "-journal", temporary + "-wal", temporary + "-shm"]
        for file in leftovers { try? fm.removeItem(atPath: file) }
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
                guard check == "ok" else { throw RepairError.backupFailed(path: storePath, reason: "backup check: \(check)") }
            }
            try queue.close()
            try fm.moveItem(atPath: temporary, toPath: backup)
        } catch {
            try? destination?.close()
            for file in leftovers { try? fm.removeItem(atPath: file) }
            if let error = error as? RepairError { throw error }
            throw RepairError.backupFailed(path: storePath, reason: "writing \(backup): \(WriteFault.cause(error, systemErrno: systemErrno))")
        }
    }

    /// `PRAGMA quick_check` and the expected counts; on failure the backup (if any) is copied back.
    /// quick_check reads every page and record as integrity_check does but does not match
    /// each index against its table, which takes it from seconds to a second on millions of
    /// rows; the rows were removed by SQLite's own DELETE, which maintains the indexes.
    private static func verify(_ queue: DatabaseQueue, path: String, preview: PurgePreview, backup: String?) throws {
        let (check, transactions, changes) = try queue.inDatabase { db in
            (try String.fetchAll(db, sql: "PRAGMA quick_check").joined(separator: "; "),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE") ?? -1)
        }
        var problem: String?
        if check != "ok" { problem = "quick_check: \(check)" }
        if transactions != preview.survivingTransactions || changes != preview.survivingChanges {
            problem = "\(plural(transactions, "transaction")) and \(plural(changes, "change")) remain, the preview said \(preview.survivingTransactions) and \(preview.survivingChanges)"
        }
        guard let problem else { return }
        guard let backup else { throw RepairError.verificationFailed(path: path, detail: problem, restoredFrom: nil) }
        let source = try DatabaseQueue(path: backup)
        try source.inDatabase { src in try queue.inDatabase { dst in try src.backup(to: dst) } }
        try source.close()
        throw RepairError.verificationFailed(path: path, detail: problem, restoredFrom: backup)
    }

    private static func fileBytes(_ path: String) -> Int64 {
        (StoreFiles.size(path) ?? 0) + (StoreFiles.size(path + "-wal") ?? 0)
    }
}
