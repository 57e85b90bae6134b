import Foundation

/// Where a purge writes its backup.
public enum BackupPolicy: Sendable, Equatable {
    /// Beside the store, with a timestamp (``BackupName/beside(_:date:)``).
    case besideStore
    case at(String)
    /// No backup: the caller already has a copy.
    case skip
}

/// How to execute a purge.
public struct PurgeOptions: Sendable {
    public var backup: BackupPolicy
    /// Delete strings no transaction uses any more.
    public var pruneStrings: Bool
    /// Run VACUUM afterwards so the file shrinks.
    public var vacuum: Bool
    /// Seconds to wait for another process's lock.
    public var busyTimeout: Double
    /// Execute even a plan that expires an actor or makes one miss changes.
    public var allowBreakingActors: Bool

    public init(
        backup: BackupPolicy = .besideStore, pruneStrings: Bool = false, vacuum: Bool = false, busyTimeout: Double = 2,
        allowBreakingActors: Bool = false
    ) {
        self.backup = backup
        self.pruneStrings = pruneStrings
        self.vacuum = vacuum
        self.busyTimeout = busyTimeout
        self.allowBreakingActors = allowBreakingActors
    }
}

/// What an executed purge did.
public struct PurgeResult: Equatable, Sendable {
    /// nil when the backup was skipped.
    public var backupPath: String?
    public var deletedTransactions: Int
    public var deletedChanges: Int
    public var prunedStrings: Int
    public var vacuumed: Bool
    /// File sizes (main + WAL) before and after.
    public var bytesBefore: Int64
    public var bytesAfter: Int64
    /// Whether an earlier purge of the store was stopped before it finished (killed, or the
    /// machine went down): its lock file was there. SQLite rolled back what it had not committed.
    public var earlierPurgeStopped: Bool
    /// Backups beside the store that a stopped purge did not finish (`….partial`): none is usable;
    /// the purge leaves them for the user to remove.
    public var unfinishedBackups: [String]
}
