import Foundation
import HistoryReading

/// Deletes history the way `deleteHistory(before:)` does, safely: backup
/// first (SQLite's online backup, WAL content included), one SQLite
/// transaction, `Z_PRIMARYKEY` and every other table untouched, then
/// `PRAGMA quick_check` and the counts, restoring the backup on failure.
public enum PurgeExecutor {
    /// Throws when `plan` breaks actors (its preview's consequences) and `options` does not
    /// allow it. ``execute(_:options:stops:progress:)`` asks first; a caller that confirms
    /// with the user asks before that.
    public static func permit(_ plan: PurgePlan, options: PurgeOptions) throws {
        let broken = plan.preview.consequences.map { "\($0.actor) (\($0.status.rawValue))" }
        if !broken.isEmpty && !options.allowBreakingActors {
            throw RepairError.wouldBreakActors(path: plan.store.path, actors: broken)
        }
    }

    /// Executes `plan` on the store it was planned on. That store is closed first, and
    /// with it this process's read-only connection to the files (it would share a read-only
    /// `-shm` mapping with the writer); open it again to read it afterwards. The purge stops at a
    /// safe point when `stops` (the caller's) ask; without them, nothing stops it. `progress`
    /// receives status lines.
    public static func execute(
        _ plan: PurgePlan, options: PurgeOptions, stops: StopRequests? = nil,
        progress: (String) -> Void = { _ in }
    ) throws -> PurgeResult {
        try permit(plan, options: options)
        if plan.store.packedIn != nil { throw PlaceError.readOnlyPlace(name: plan.store.path) }
        plan.store.close()
        // From here Ctrl-C (or `stops`), SIGTERM and SIGHUP stop the purge at its next safe point
        // (armed before the purge's lock file exists, so that a signal never leaves it behind).
        let running = Locked(RunningPurge())
        let stop = WriteInterruption(stops: stops) { running.current.run?.interrupt() }
        defer { stop.cancel() }
        // 1. One writer of its own, once the files are known to be writable and no other purge runs.
        let run = try PurgeRun(plan: plan, options: options)
        defer { run.close() }
        running.set(RunningPurge(run: run))
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
}

/// The purge a signal interrupts, once there is one (held weakly: the signal's handler
/// outlives it until the handler is cancelled).
private struct RunningPurge {
    weak var run: PurgeRun?
}
