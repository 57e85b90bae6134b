import Foundation

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
        plan.store.close()
        // 1. One writer of its own, once the files are known to be writable.
        let run = try PurgeRun(plan: plan, options: options)
        defer { run.close() }
        // From here Ctrl-C, SIGTERM and SIGHUP stop the purge at its next safe point.
        let stop = WriteInterruption { [weak run] in run?.interrupt() }
        defer { stop.cancel() }
        // 2. In one SQLite transaction: the selection counted again, the backup, the deletes, the commit.
        do {
            try run.deleteAndCommit(stop: stop, progress: progress)
        } catch {
            // 3. A failure or a signal leaves the folder as it was, or says what it left.
            throw run.undo(after: error, signal: stop.received)
        }
        FaultInjection.point("after-commit")
        // 4. quick_check and the counts, the backup restored on failure.
        try run.verify()
        // A signal after the commit: the purge is done and checked; VACUUM is left out.
        try stop.check(path: plan.store.path, outcome: run.committedOutcome)
        // 5. VACUUM when asked, checked again.
        if options.vacuum {
            do {
                try run.vacuum(progress: progress)
            } catch {
                // VACUUM stopped by a signal is rolled back: the purge stands.
                try stop.check(path: plan.store.path, outcome: run.committedOutcome)
                throw error
            }
            try run.verify()
        }
        return try run.finish()
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
}
