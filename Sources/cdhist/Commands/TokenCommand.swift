import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist token FILE [--store STORE]`: decode a history token and check it against a store.
struct TokenCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract:
            """
            Decode a history token (token.data, a plist holding one, SwiftData JSON, or STOREUUID:N) and check it \
            against a store.
            """,
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist token [<options>] <token>",
        discussion: CommandHelp.token
    )

    static let sessionStore = SessionStorePlacement.storeOption

    @Argument(
        help: ArgumentHelp("A token file, a plist holding a token, or a literal STOREUUID:N.", valueName: "token"))
    var token: String

    @Option(help: ArgumentHelp("Check the token against this store.", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var lock: LockOptions

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let render = outputOptions.context(in: context)
        let opened = try store.map { try context.openStore($0, lockTimeout: lock.lockTimeout) }
        let report = try TokenReport.make(source: token, store: opened, now: Date().timeIntervalSinceReferenceDate)
        let presenter = TokenPresenter(time: render.time, storeName: store, storeUUID: opened?.storeUUID)
        DocumentRenderer.render(presenter.document(report), context: render)
        if report.anyBroken { throw ExitCode(1) }
    }
}
