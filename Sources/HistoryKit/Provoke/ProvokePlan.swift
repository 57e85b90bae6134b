import HistoryReading
import HistoryWrites

/// A provocation ready to execute: what it deletes or rewrites, the files it changes, and what
/// the app meets at its next launch.
public struct ProvokePlan {
    public let scenario: ProvokeScenario
    /// The actor it acts on (CloudKit's exporter for `cloudkit-reset`).
    public let actor: String
    /// The store's path as given.
    public let storePath: String
    /// The purge it executes (scenarios that delete history).
    public let purge: PurgePlan?
    /// The merge position it rewrites (the others).
    public let edit: PositionEdit?
    /// The transactions it deletes, first and last (nil when none).
    public let deletedRange: ClosedRange<Int64>?
    public let expected: LaunchExpectation
    /// What it does, in a sentence.
    public let summary: String

    /// Transactions it deletes.
    public var transactionsDeleted: Int { purge?.preview.transactionCount ?? 0 }

    /// The `check` rule that reports the failure once it is made; nil when none does: `behind`
    /// (only past the thresholds), and missed changes by a purge that leaves no transaction, as
    /// no rule can then date what was deleted against the actor's position.
    public var checkRule: String? {
        if scenario == .missedChanges, purge?.preview.survivingTransactions == 0 { return nil }
        return scenario.checkRule
    }

    /// The files executing it may change: the store's (its `-wal`, `-shm` and `-journal`
    /// whether they exist or not), or the merge position's file.
    public var files: [String] {
        if let edit { return [edit.path] }
        return StoreFiles.paths(of: storePath)
    }
}
