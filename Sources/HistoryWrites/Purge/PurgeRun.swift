import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite
import HistoryReading

/// One purge being carried out (``PurgeExecutor/execute(_:options:stops:progress:)`` runs its
/// phases): its own writer on the store, what was beside the store before, and what it
/// has done so far.
// Unchecked Sendable: its phases run on the purging thread; a signal's thread only calls
// interrupt(), which reads `interruptible` under `interruptLock` and interrupts SQLite
// (sqlite3_interrupt is safe from any thread).
final class PurgeRun: @unchecked Sendable {
    private let path: String
    /// The store's real path (links resolved): SQLite writes -wal, -shm and -journal beside it.
    private let location: String
    private let preview: PurgePreview
    private let sql: PurgeSQL
    private let options: PurgeOptions
    /// The backup's path: given, or chosen beside the store when it is written.
    private var backup: String?
    private let lock: PurgeLock
    private let queue: DatabaseQueue
    private let hadWAL: Bool
    private let hadSHM: Bool
    private var result: PurgeResult
    private var wroteBackup = false
    private var failureErrno: Int32 = 0
    private var walBefore: WALLength?

    /// Opens a writer on the plan's store, once its files are known to be writable.
    init(plan: PurgePlan, options: PurgeOptions) throws {
        let path = plan.store.path
        let location = FileStatus.resolvedPath(plan.store.path)
        try Self.checkWritable(location)
        // Another cdhist purging this store is refused here, before anything is written.
        let lock = try PurgeLock(location: location, path: path)
        let bytesBefore = Self.fileBytes(location)
        let fm = FileManager.default
        let hadWAL = fm.fileExists(atPath: location + "-wal")
        let hadSHM = fm.fileExists(atPath: location + "-shm")
        var config = Configuration()
        config.busyMode = .timeout(OpenOptions.clampedBusyTimeout(options.busyTimeout))
        config.allowsUnsafeTransactions = true
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError {
            Self.removeCreated(location, hadWAL: hadWAL, hadSHM: hadSHM)
            throw Self.mapOpen(error, path: path, timeout: options.busyTimeout)
        }
        if case .at(let backup) = options.backup {
            self.backup = backup
        }
        if case .at(let backup) = options.backup,
            let file = ([path] + StoreFiles.paths(of: path)).first(where: {
                FileStatus.sameFile(backup, $0)
            })
        {
            try? queue.close()
            throw RepairError.backupFailed(
                path: path, reason: "\(backup) is \(file == backup ? "" : file + ", ")a file of the store")
        }
        (self.path, self.location, preview, sql, self.options, self.lock) = (
            path, location, plan.preview, plan.sql, options, lock
        )
        (self.hadWAL, self.hadSHM) = (hadWAL, hadSHM)
        result = PurgeResult(
            backupPath: nil, deletedTransactions: 0, deletedChanges: 0, prunedStrings: 0,
            vacuumed: false, bytesBefore: bytesBefore, bytesAfter: bytesBefore,
            earlierPurgeStopped: lock.foundStale, unfinishedBackups: Self.unfinishedBackups(path))
    }

    /// Whether a signal stops the statement running: while deleting and vacuuming, not while checking.
    private let interruptLock = NSLock()
    private var interruptible = false

    /// Stops the statement running now, when it is one a signal may stop (from a signal's
    /// handler: the connection allows it from any thread).
    func interrupt() {
        interruptLock.withLock { if interruptible { queue.interrupt() } }
    }

    private func whileInterruptible<T>(_ body: () throws -> T) rethrows -> T {
        interruptLock.withLock { interruptible = true }
        defer { interruptLock.withLock { interruptible = false } }
        return try body()
    }

    /// In one SQLite transaction: the selection counted again, the backup, the deletes and the commit;
    /// a signal (`stop`) rolls it back at the next step.
    func deleteAndCommit(stop: WriteInterruption, progress: (String) -> Void) throws {
        // A signal while the writer was being opened stops the purge before it starts.
        try stop.check(path: path, outcome: "")
        try whileInterruptible {
            try queue.inDatabase { db in
                try probeWriteLock(db)
                if hadWAL { walBefore = WALLength(location + "-wal", db) }
                // One read snapshot covers the check, the backup and the delete: if another
                // connection commits in between, upgrading to a write fails and nothing changes.
                try db.execute(sql: "BEGIN DEFERRED")
                do {
                    try verifyUnchanged(db)
                    if case .besideStore = options.backup { backup = BackupName.beside(path) }
                    if let backup {
                        progress("backing up to \(backup)")
                        try PurgeBackup.write(db, to: backup, storePath: path)
                        wroteBackup = true
                        result.backupPath = backup
                    }
                    FaultInjection.point("after-backup")
                    try stop.check(path: path, outcome: "")
                    progress(
                        """
                        deleting \(plural(preview.transactionCount, "transaction")) and \
                        \(plural(preview.changeCount, "change"))
                        """
                    )
                    try deleteRows(db)
                    if options.pruneStrings, let prune = sql.pruneStrings {
                        try db.execute(sql: prune)
                        result.prunedStrings = db.changesCount
                    }
                    FaultInjection.point("before-commit")
                    try stop.check(path: path, outcome: "")
                    try db.execute(sql: "COMMIT")
                } catch {
                    failureErrno = sqlite3_system_errno(db.sqliteConnection)
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        }
    }

    /// Why the store is held: by another process (another cdhist purge was refused by the lock).
    private func busy() -> RepairError {
        .busy(path: path, seconds: options.busyTimeout)
    }

    /// Backups a purge that was stopped (killed, or the machine went down) did not finish, where
    /// default backups are made: beside the store as named (`path`, a link itself when it is one).
    /// With the lock held, no other purge is writing them.
    private static func unfinishedBackups(_ path: String) -> [String] {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + BackupName.marker
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".partial") }.sorted().map {
            folder.isEmpty ? $0 : folder + "/" + $0
        }
    }

    /// Fails early, and clearly, when another connection is writing.
    private func probeWriteLock(_ db: Database) throws {
        do {
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "ROLLBACK")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            throw busy()
        }
    }

    /// The selection still matches what the preview counted, and the preview's ranges hold it exactly.
    private func verifyUnchanged(_ db: Database) throws {
        // Counted from the selection itself (a date cut-off counts down the timestamp index), not by
        // looking each selected number up again.
        let tx = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql.matching))", arguments: sql.arguments) ?? 0
        let all = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? 0
        var inRanges = tx
        if let ranges = preview.ranges {
            inRanges = 0
            let count = try db.makeStatement(sql: "SELECT COUNT(*) FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?")
            for r in ranges { inRanges += try Int.fetchOne(count, arguments: [r.lowerBound, r.upperBound]) ?? 0 }
        }
        guard tx == preview.transactionCount, inRanges == tx,
            all == preview.transactionCount + preview.survivingTransactions
        else {
            throw RepairError.changedSincePreview(
                path: path,
                detail:
                    """
                    \(tx) of \(all) transactions match now; the preview saw \(preview.transactionCount) of \
                    \(preview.transactionCount + preview.survivingTransactions)
                    """
            )
        }
    }

    /// Deletes the changes, then the transactions, and checks the counts against the preview.
    private func deleteRows(_ db: Database) throws {
        // By ranges of numbers when the selection is a few runs (verified to be exactly the
        // matching transactions): no set of numbers to build, index ranges only.
        let deletes: [(changes: String, transactions: String, arguments: StatementArguments)] =
            preview.ranges.map { ranges in
                ranges.map {
                    (
                        "DELETE FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ?",
                        "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?",
                        [$0.lowerBound, $0.upperBound]
                    )
                }
            } ?? [
                (
                    "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (\(sql.matching))",
                    "DELETE FROM ATRANSACTION WHERE Z_PK IN (\(sql.matching))",
                    sql.arguments
                )
            ]
        do {
            for d in deletes {
                try db.execute(sql: d.changes, arguments: d.arguments)
                result.deletedChanges += db.changesCount
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            throw busy()
        }
        FaultInjection.point("mid-delete")
        for d in deletes {
            try db.execute(sql: d.transactions, arguments: d.arguments)
            result.deletedTransactions += db.changesCount
        }
        guard result.deletedChanges == preview.changeCount, result.deletedTransactions == preview.transactionCount
        else {
            throw RepairError.changedSincePreview(
                path: path,
                detail:
                    """
                    deleted \(plural(result.deletedTransactions, "transaction")) and \
                    \(plural(result.deletedChanges, "change")), the preview said \(preview.transactionCount) and \
                    \(preview.changeCount)
                    """
            )
        }
    }

    /// After a failed transaction: when nothing was deleted (a commit that failed is rolled back),
    /// the folder is left as it was. Returns the error to throw, saying what a write failure left.
    func undo(after error: Error, signal: Int32?) -> Error {
        let unchanged =
            (try? queue.inDatabase { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") })
            == preview.transactionCount + preview.survivingTransactions
        let written =
            (try? queue.inDatabase { try String.fetchOne($0, sql: "PRAGMA journal_mode") })?.lowercased() == "wal"
            ? location + "-wal" : path
        if unchanged {
            if let backup, wroteBackup { try? FileManager.default.removeItem(atPath: backup) }
            if let walBefore { queue.inDatabase { walBefore.restore($0) } }
            // Closing the last connection would checkpoint the -wal into the main file and remove it.
            if hadWAL {
                queue.inDatabase {
                    _ = cdhist_sqlite_no_checkpoint_on_close(UnsafeMutableRawPointer($0.sqliteConnection))
                }
            }
            try? queue.close()
            Self.removeCreated(location, hadWAL: hadWAL, hadSHM: hadSHM)
        }
        if let signal {
            return RepairError.interrupted(
                path: path, signal: WriteInterruption.name(signal),
                outcome: unchanged
                    ? "nothing was deleted: the store is as it was" + (wroteBackup ? " and the backup was removed" : "")
                    : "the store may have changed: check it with \(Control.showStoreInfo)"
                        + (wroteBackup ? " and restore \(backup ?? "") if needed" : ""))
        }
        guard let failure = error as? DatabaseError, WriteFault.isWriteFailure(failure) else { return error }
        return RepairError.writeFailed(
            path: path, file: written, cause: WriteFault.cause(failure, systemErrno: failureErrno),
            outcome: unchanged
                ? "nothing was deleted"
                : "the store may have changed: check it with \(Control.showStoreInfo)"
                    + (wroteBackup ? " and restore \(backup ?? "") if needed" : ""))
    }

    /// `PRAGMA quick_check` and the expected counts; on failure the backup (if any) is copied back.
    /// quick_check reads every page and record as integrity_check does but does not match
    /// each index against its table, which takes it from seconds to a second on millions of
    /// rows; the rows were removed by SQLite's own DELETE, which maintains the indexes.
    func verify() throws {
        let (check, transactions, changes) = try queue.inDatabase { db in
            (
                try String.fetchAll(db, sql: "PRAGMA quick_check").joined(separator: "; "),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE") ?? -1
            )
        }
        var problem: String?
        if check != "ok" { problem = "quick_check: \(check)" }
        if transactions != preview.survivingTransactions || changes != preview.survivingChanges {
            problem =
                """
                \(plural(transactions, "transaction")) and \(plural(changes, "change")) remain, the preview said \
                \(preview.survivingTransactions) and \(preview.survivingChanges)
                """
        }
        guard let problem else { return }
        guard let backup else { throw RepairError.verificationFailed(path: path, detail: problem, restoredFrom: nil) }
        try PurgeBackup.restore(backup, into: queue)
        throw RepairError.verificationFailed(path: path, detail: problem, restoredFrom: backup)
    }

    /// VACUUM, then a checkpoint that empties the -wal, so the file shrinks.
    func vacuum(progress: (String) -> Void) throws {
        progress("VACUUM (rewrites the file so it shrinks)")
        try whileInterruptible {
            try queue.inDatabase { db in
                do {
                    try db.execute(sql: "VACUUM")
                    _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                } catch let error as DatabaseError where WriteFault.isWriteFailure(error) {
                    throw RepairError.writeFailed(
                        path: path, file: path,
                        cause: WriteFault.cause(error, systemErrno: sqlite3_system_errno(db.sqliteConnection)),
                        outcome: "the purge was committed, VACUUM was not (the file did not shrink)")
                }
            }
        }
        result.vacuumed = true
    }

    /// What a purge stopped after its commit leaves: done and checked, VACUUM not run.
    var committedOutcome: Message {
        """
        the purge was committed and checked (\(plural(result.deletedTransactions, "transaction")) and \
        \(plural(result.deletedChanges, "change")) deleted
        """
            + (backup.map { "; backup: \($0)" } ?? "") + ")" + (options.vacuum ? "; VACUUM was not run" : "")
    }

    /// Closes the writer and measures the file: the purge's result.
    func finish() throws -> PurgeResult {
        try queue.close()
        result.bytesAfter = Self.fileBytes(location)
        return result
    }

    /// Closes the writer, whatever happened, and lets another purge run.
    func close() {
        try? queue.close()
        lock.release()
    }

    /// After a purge that changed nothing: removes the -wal and -shm that opening the store
    /// created, unless another process has the store open (they are its then).
    private static func removeCreated(_ path: String, hadWAL: Bool, hadSHM: Bool) {
        let fm = FileManager.default
        guard !(hadWAL && hadSHM), !StoreConnection.hasLiveConnection(shm: path + "-shm") else { return }
        if !hadWAL { try? fm.removeItem(atPath: path + "-wal") }
        if !hadSHM { try? fm.removeItem(atPath: path + "-shm") }
    }

    private static func checkWritable(_ path: String) throws {
        let fm = FileManager.default
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        for (file, what) in [
            (path, "the store file is read-only"),
            (dir, "its folder is read-only (SQLite needs to write -wal and -shm beside it)"),
        ] {
            let mode = ((try? fm.attributesOfItem(atPath: file))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            if mode & 0o222 == 0 || access(file, W_OK) != 0 { throw RepairError.readOnly(path: path, reason: what) }
        }
        for suffix in ["-wal", "-shm"] where fm.fileExists(atPath: path + suffix) {
            let mode =
                ((try? fm.attributesOfItem(atPath: path + suffix))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            if mode & 0o222 == 0 { throw RepairError.readOnly(path: path, reason: "\(path)\(suffix) is read-only") }
        }
    }

    private static func mapOpen(_ error: DatabaseError, path: String, timeout: Double) -> Error {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return RepairError.busy(path: path, seconds: timeout)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN:
            return RepairError.readOnly(path: path, reason: error.message ?? "\(error.resultCode)")
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_PERM:
            return RepairError.writeFailed(
                path: path, file: path, cause: WriteFault.cause(error), outcome: "nothing was deleted")
        default: return StoreError.sqlite(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }

    private static func fileBytes(_ path: String) -> Int64 {
        (StoreFiles.size(path) ?? 0) + (StoreFiles.size(path + "-wal") ?? 0)
    }
}
