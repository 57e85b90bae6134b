import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist repair-defaults PLIST --actor A …`: move or remove an actor's merge position.
struct RepairDefaultsCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "repair-defaults",
        abstract: "Set, rewrite or remove an actor's merge position in shared defaults (preview unless --execute).",
        discussion: CommandHelp.repairDefaults
    )

    static let sessionStore = SessionStorePlacement.storeOption

    @Argument(help: ArgumentHelp("The shared defaults plist (binary or XML).", valueName: "plist"))
    var plist: String

    @Option(help: ArgumentHelp("The actor whose position to change.", valueName: "name"))
    var actor: String

    @OptionGroup var position: RepairTargetOptions

    @Option(
        help: ArgumentHelp(
            "The store the positions refer to (needed for tx:N, --to-oldest, --to-latest).", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var keys: RepairKeyOptions

    @Flag(help: "Write the change (atomically, keeping the plist's format and every other key, after a backup).")
    var execute = false

    @Flag(
        name: .customLong("allow-skip"),
        help: "Write a move that makes the actor skip transactions by others it has not merged.")
    var allowSkip = false

    @Option(
        help: ArgumentHelp(
            "Where to copy the original plist (default: beside it, with a timestamp).", valueName: "path"))
    var backup: String?

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let render = outputOptions.context(in: context)
        let opened = try store.map { try context.openStore($0, lockTimeout: 2) }
        let repair = try MergeStateRepair.run(
            MergeStateRepairRequest(
                plist: plist, actor: actor,
                target: try position.target(utc: outputOptions.utc, hasStore: opened != nil),
                keyFormat: try keys.format(), keyPrefixes: keys.keyPrefix, execute: execute, backupPath: backup,
                allowSkipping: allowSkip),
            store: opened, stops: execute ? context.writeStops() : nil)
        let presenter = RepairDefaultsPresenter(time: render.time, plist: plist, actor: actor)
        DocumentRenderer.render(
            presenter.document(repair.plan, executed: execute, backup: repair.backup), context: render)
    }
}
