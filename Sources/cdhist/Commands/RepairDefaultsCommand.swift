import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist repair-defaults PLIST --actor A …`: move or remove an actor's merge position.
struct RepairDefaultsCommand: ParsableCommand, SessionInputs {
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

    @Option(help: ArgumentHelp("Move it to this date or tx:N.", valueName: "position"))
    var to: String?

    @Flag(
        name: .customLong("to-oldest"),
        help: "Move it just before the oldest surviving transaction (it merges everything left).")
    var toOldest = false

    @Flag(name: .customLong("to-latest"), help: "Move it to the newest transaction (it is up to date).")
    var toLatest = false

    @Flag(help: "Remove the actor's key.")
    var remove = false

    @Option(
        help: ArgumentHelp(
            "The store the positions refer to (needed for tx:N, --to-oldest, --to-latest).", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @Option(
        name: .customLong("key-format"),
        help: ArgumentHelp(
            "Key format when the actor has no key: phtk, tracker, timestamp, appwise.", valueName: "format"))
    var keyFormat: String?

    @Option(
        name: .customLong("key-prefix"),
        help: ArgumentHelp("Another key prefix followed by the actor name (repeatable).", valueName: "prefix"))
    var keyPrefix: [String] = []

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

    func validate() throws {
        let chosen = [to != nil, toOldest, toLatest, remove].filter { $0 }.count
        guard chosen == 1 else {
            throw ValidationError("give exactly one of --to, --to-oldest, --to-latest and --remove")
        }
    }

    func run() throws {
        let context = outputOptions.context()
        let opened = try store.map { try openStore($0, lockTimeout: 2) }
        let target: RepairTarget
        if remove {
            target = .remove
        } else if toOldest {
            target = .oldest
        } else if toLatest {
            target = .latest
        } else {
            switch try PositionParser(utc: outputOptions.utc).bound(to ?? "", option: "--to") {
            case .date(let d): target = .date(d)
            case .transaction(let n): target = .transaction(n)
            case .token(let t):
                guard opened != nil else {
                    throw ValidationError("--to token: needs --store and a token of that store")
                }
                target = .token(t)
            }
        }
        let format = try keyFormat.map(Self.parseFormat)
        let plan = try DefaultsRepair.plan(
            path: plist, actor: actor, target: target, store: opened, keyFormat: format,
            customPrefixes: keyPrefix)
        let backupPath =
            execute
            ? try DefaultsRepair.write(
                plan, backupPath: backup, allowSkipping: allowSkip,
                stops: REPLEnvironment.current?.freshStop()) : nil
        let presenter = RepairDefaultsPresenter(time: context.time, plist: plist, actor: actor)
        DocumentRenderer.render(presenter.document(plan, executed: execute, backup: backupPath), context: context)
    }

    static func parseFormat(_ text: String) throws -> MergeKeyFormat {
        switch text.lowercased() {
        case "phtk", "persistenthistorytrackingkit": return .persistentHistoryTrackingKit
        case "tracker", "fatbobman": return .persistentHistoryTracker
        case "timestamp", "studapp", "swiftlee": return .lastHistoryTransactionTimestamp
        case "appwise", "appwisecore": return .appwiseCore
        default: throw ValidationError("unknown key format '\(text)': use phtk, tracker, timestamp or appwise")
        }
    }
}
