import HistoryAnalysis
import HistoryReading
import HistoryWrites

/// What a repair of an actor's merge position is asked: the shared defaults plist, the actor and
/// where to move it, how to name a key it lacks, and whether to write (with its backup) or only plan.
public struct MergeStateRepairRequest: Sendable {
    public var plist: String
    public var actor: String
    public var target: RepairTarget
    /// The key to create when the actor has none; nil: as the plist's other keys are made.
    public var keyFormat: MergeKeyFormat?
    /// Prefixes before actors' names in the plist's keys.
    public var keyPrefixes: [String]
    /// Write the plan; false: only plan it.
    public var execute: Bool
    /// Where to back the plist up; nil: beside it, with a timestamp.
    public var backupPath: String?
    /// Write even a plan that makes the actor skip transactions it has not merged.
    public var allowSkipping: Bool

    public init(
        plist: String, actor: String, target: RepairTarget, keyFormat: MergeKeyFormat?, keyPrefixes: [String],
        execute: Bool, backupPath: String?, allowSkipping: Bool
    ) {
        self.plist = plist
        self.actor = actor
        self.target = target
        self.keyFormat = keyFormat
        self.keyPrefixes = keyPrefixes
        self.execute = execute
        self.backupPath = backupPath
        self.allowSkipping = allowSkipping
    }
}

/// `repair-defaults`' use case: the change that moves an actor's merge position in shared
/// defaults (``DefaultsRepair``), written with a backup when asked.
public struct MergeStateRepair {
    public var plan: DefaultsRepairPlan
    /// Where the plist was backed up before it was written; nil when it was only planned.
    public var backup: String?

    /// Plans the repair (with `store`, which resolves transactions, for every target but a date
    /// and a removal) and, when the request says so, writes it; the write stops at a safe point
    /// when `stops` (the caller's) ask.
    public static func run(_ request: MergeStateRepairRequest, store: HistoryStore?, stops: StopRequests?) throws
        -> MergeStateRepair
    {
        let plan = try DefaultsRepair.plan(
            path: request.plist, actor: request.actor, target: request.target, store: store,
            keyFormat: request.keyFormat, customPrefixes: request.keyPrefixes)
        guard request.execute else { return MergeStateRepair(plan: plan, backup: nil) }
        let backup = try DefaultsRepair.write(
            plan, backupPath: request.backupPath, allowSkipping: request.allowSkipping, stops: stops)
        return MergeStateRepair(plan: plan, backup: backup)
    }
}
