import ArgumentParser
import HistoryKit

/// `cdhist saves STORE`: every commit still in the -wal, and what each changed.
struct SavesCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "saves",
        abstract:
            """
            List the saves still in the -wal: each commit's frames, pages, the history transactions it added, and \
            the rows it changed per entity.
            """,
        usage: "cdhist saves [<options>] <store>",
        discussion: CommandHelp.saves)

    static let sessionStore = SessionStorePlacement.first

    @Argument(help: ArgumentHelp("The Core Data store file.", valueName: "store"))
    var store: String

    @OptionGroup var booted: BootedOptions

    @Option(help: ArgumentHelp("Model to decode with instead of the store's cache (for --slots).", valueName: "path"))
    var model: String?

    @Flag(help: "Also check the ZCOLUMNS slot layout against what each update in the saves really changed.")
    var slots = false

    @OptionGroup var lock: LockOptions

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let historyStore = try context.openStore(store, lockTimeout: lock.lockTimeout)
        let render = try outputOptions.context(in: context).reading(historyStore)
        let listing = try SaveListing.read(historyStore, SaveListingRequest(checkSlots: slots, modelPath: model))
        try SavesPresenter().render(listing, store: store, context: render)
    }
}
