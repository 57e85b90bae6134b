import ArgumentParser
import HistoryKit

/// `cdhist recover STORE`: what the saves still in the -wal hold that the store no longer does.
struct RecoverCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract:
            """
            List what the saves still in the -wal hold that the store no longer does: history a purge removed, \
            and objects deleted with their values.
            """,
        usage: "cdhist recover [<options>] <store>",
        discussion: CommandHelp.recover)

    static let sessionStore = SessionStorePlacement.first

    @Argument(help: ArgumentHelp("The Core Data store file.", valueName: "store"))
    var store: String

    @OptionGroup var booted: BootedOptions

    @Option(help: ArgumentHelp("Model to decode with instead of the store's cache.", valueName: "path"))
    var model: String?

    @Flag(
        help:
            """
            Show every value whole in the table (long strings and data are cut otherwise; JSON always gives every \
            byte).
            """
    )
    var all = false

    @OptionGroup var lock: LockOptions

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let historyStore = try context.openStore(store, lockTimeout: lock.lockTimeout)
        let render = try outputOptions.context(in: context).reading(historyStore)
        let recovery = try Recovery.read(historyStore, modelPath: model)
        let presenter = RecoverPresenter(
            history: HistoryPresenter(time: render.time), storeUUID: historyStore.storeUUID, all: all)
        DocumentRenderer.render(presenter.document(recovery, store: store), context: render)
    }
}
