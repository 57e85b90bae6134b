import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist cloudkit STORE`: what CloudKit mirroring keeps in the store.
struct CloudKitCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "cloudkit",
        abstract:
            """
            Show CloudKit mirroring's state: export position, records awaiting upload or deletion, objects \
            changed since their export, fetches and events.
            """,
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist cloudkit [<options>] <store>",
        discussion: CommandHelp.cloudKit)

    static let sessionStore = SessionStorePlacement.first

    @Argument(help: ArgumentHelp("The Core Data store file (.sqlite, .store).", valueName: "store"))
    var store: String

    @OptionGroup var booted: BootedOptions

    @Option(help: ArgumentHelp("List at most this many objects changed since their last export.", valueName: "n"))
    var objects = 10

    @Option(help: ArgumentHelp("Show at most this many of the newest events.", valueName: "n"))
    var events = 10

    @Option(
        help: ArgumentHelp(
            """
            Evaluate as of this date instead of now; lags are then measured to it (without it, to the store's \
            newest transaction, unless the store is live).
            """,
            valueName: "date"))
    var now: String?

    @OptionGroup var lock: LockOptions

    @OptionGroup var save: SaveOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard objects >= 0, events >= 0 else {
            throw ValidationError("--objects and --events take a count of 0 or more")
        }
    }

    func run(_ context: CommandContext) throws {
        let store = try context.openStore(store, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        let render = try outputOptions.context(in: context).reading(store)
        let at =
            try now.map { try PositionParser(utc: outputOptions.utc).date($0, option: "--now") }
            ?? Date().timeIntervalSinceReferenceDate
        let content = try CloudKitStatus.read(
            store, now: at, nowIsGiven: now != nil, objects: objects, events: events)
        DocumentRenderer.render(CloudKitPresenter(time: render.time, now: at).document(content), context: render)
    }
}
