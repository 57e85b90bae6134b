import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist repair-defaults PLIST --actor A …`: move or remove an actor's merge position.
struct RepairDefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair-defaults",
        abstract: "Set, rewrite or remove an actor's merge position in shared defaults (preview unless --execute).",
        discussion: "Quit the app, its extensions and the simulator first: running processes cache their defaults and may write them back.")

    @Argument(help: ArgumentHelp("The shared defaults plist (binary or XML).", valueName: "plist"))
    var plist: String

    @Option(help: ArgumentHelp("The actor whose position to change.", valueName: "name"))
    var actor: String

    @Option(help: ArgumentHelp("Move it to this date or tx:N.", valueName: "position"))
    var to: String?

    @Flag(name: .customLong("to-oldest"), help: "Move it just before the oldest surviving transaction (it merges everything left).")
    var toOldest = false

    @Flag(name: .customLong("to-latest"), help: "Move it to the newest transaction (it is up to date).")
    var toLatest = false

    @Flag(help: "Remove the actor's key.")
    var remove = false

    @Option(help: ArgumentHelp("The store the positions refer to (needed for tx:N, --to-oldest, --to-latest).", valueName: "store"))
    var store: String?

    @Option(name: .customLong("key-format"), help: ArgumentHelp("Key format when the actor has no key: phtk, tracker, timestamp, appwise.", valueName: "format"))
    var keyFormat: String?

    @Option(name: .customLong("key-prefix"), help: ArgumentHelp("Another key prefix followed by the actor name (repeatable).", valueName: "prefix"))
    var keyPrefix: [String] = []

    @Flag(help: "Write the change (atomically, keeping the plist's format and every other key, after a backup).")
    var execute = false

    @Option(help: ArgumentHelp("Where to copy the original plist (default: beside it, with a timestamp).", valueName: "path"))
    var backup: String?

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        let chosen = [to != nil, toOldest, toLatest, remove].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("give exactly one of --to, --to-oldest, --to-latest and --remove") }
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
                guard let uuid = opened?.storeUUID, let n = t.transactionNumber(forStore: uuid) else {
                    throw ValidationError("--to token: needs --store and a token of that store")
                }
                target = .transaction(n)
            }
        }
        let format = try keyFormat.map(Self.parseFormat)
        let plan = try DefaultsRepair.plan(path: plist, actor: actor, target: target, store: opened, keyFormat: format,
                                           customPrefixes: keyPrefix)
        var fields: [(String, String)] = [("Plist", "\(plist) (\(plan.format.rawValue))"), ("Actor", actor)]
        for c in plan.changes {
            fields.append((c.key, "\(describe(c.old, time: context.time)) → \(describe(c.new, time: context.time))"))
        }
        fields.append(("Other keys", "\(plan.original.count - plan.changes.filter { $0.old != nil }.count) kept exactly"))
        var json: [(String, JSONValue)] = [
            ("plist", .string(plist)), ("plistFormat", .string(plan.format.rawValue)), ("actor", .string(actor)),
            ("changes", .array(plan.changes.map { c in .object([("key", .string(c.key)), ("old", jsonValue(c.old, time: context.time)),
                                                               ("new", jsonValue(c.new, time: context.time))]) })),
            ("executed", .bool(execute)),
        ]
        if execute {
            let backupPath = try DefaultsRepair.write(plan, backupPath: backup)
            fields.append(("Written", "backup of the original: \(backupPath)"))
            json.append(("backup", .string(backupPath)))
        } else {
            fields.append(("Preview", "nothing was changed; add --execute to write it"))
        }
        DocumentRenderer.render(Document(kind: "repair-defaults", json: json, sections: [.fields(title: nil, fields)]), context: context)
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

    private func describe(_ value: PlistValue?, time: TimeFormatter) -> String {
        guard let value else { return "(none)" }
        switch value {
        case .date(let d): return "date \(time.display(d))"
        case .data, .string:
            if let token = token(value) { return (value.dataValue.map(HistoryTokenDecoder.isTokenArchive) == true ? "token " : "JSON token ") + "\(token)" }
            return value.dataValue.map { "\($0.count) bytes of data" } ?? "\(value)"
        default: return "\(value)"
        }
    }

    /// The token a value holds: an archive, or JSON as data or a string.
    private func token(_ value: PlistValue) -> HistoryToken? {
        if case .token(let token) = DefaultsReader.position(value, format: .binary, source: plist) { return token }
        return nil
    }

    private func jsonValue(_ value: PlistValue?, time: TimeFormatter) -> JSONValue {
        guard let value else { return .null }
        switch value {
        case .date(let d): return .object([("date", .optional(time.iso(d))), ("cocoaDate", .double(d))])
        case .data, .string:
            if let token = token(value) { return .object([("token", HistoryPresenter.json(token))]) }
            return value.dataValue.map { .object([("bytes", .int(Int64($0.count)))]) } ?? .string("\(value)")
        default: return .string("\(value)")
        }
    }
}
