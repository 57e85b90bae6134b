import ArgumentParser
import HistoryKit

/// Whether `purge` executes, and how: its backup, what else it deletes, and what it allows.
struct PurgeExecutionOptions: ParsableArguments {
    @Flag(help: "Delete for real (after a backup). Without it, only the preview.")
    var execute = false

    @Option(
        help: ArgumentHelp(
            "Where to write the backup (default: beside the store, with a timestamp).", valueName: "path"))
    var backup: String?

    @Flag(name: .customLong("no-backup"), help: "Skip the backup (only when you already have a copy of the store).")
    var noBackup = false

    @Flag(name: .customLong("prune-strings"), help: "Also delete ATRANSACTIONSTRING rows no transaction uses any more.")
    var pruneStrings = false

    @Flag(help: "Run VACUUM afterwards so the file shrinks.")
    var vacuum = false

    @Flag(name: .customLong("allow-expire"), help: "Execute even when the purge expires or breaks an actor.")
    var allowExpire = false

    @Flag(
        help:
            """
            Do not ask before a purge that deletes every transaction or knows no app's position (needed without a \
            terminal to ask on; a session asks before every purge).
            """
    )
    var yes = false

    func validate() throws {
        if noBackup && backup != nil { throw ValidationError("give --backup or --no-backup, not both") }
    }

    /// How to execute, with `lockTimeout` to wait for a lock.
    func options(lockTimeout: Double) -> PurgeOptions {
        PurgeOptions(
            backup: noBackup ? .skip : backup.map { .at($0) } ?? .besideStore, pruneStrings: pruneStrings,
            vacuum: vacuum, busyTimeout: lockTimeout, allowBreakingActors: allowExpire)
    }
}
