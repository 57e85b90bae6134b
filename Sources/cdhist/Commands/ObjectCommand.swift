import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist object STORE ID`: every change to one object, in order, and its
/// current values (or the tombstone it left).
struct ObjectCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "object",
        abstract: "One object's life: every change to it in order, and its current values read through the model.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist object [<options>] <store> <id>",
        discussion: CommandHelp.object)

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions

    @Argument(
        help: ArgumentHelp("The object: ENTITY/pN or x-coredata://STOREUUID/ENTITY/pN.", valueName: "id"),
        completion: .custom(ObjectCompletion.shellObjects))
    var id: String

    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var valueOptions: ValueOptions
    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(storeOptions, atSave: save.atSave, output: outputOptions, in: context)
        session.noteModelProblem()
        let object = try SelectionOptions.object(id, option: "object")
        let noter = try labelOptions.noter(with: valueOptions, session, in: context)
        var history = session.presenter
        history.show(noter)
        let presenter = ObjectPresenter(history: history, storeUUID: session.store.storeUUID)
        let query = HistoryQuery(objects: [object])
        let store = session.store
        let decoder = session.decoder
        // Labels and values are looked up on one connection, in order: read in one go then.
        let chunks =
            !noter.isEmpty
            ? nil
            : (
                plain: PlainChangeWriter(decoder: decoder, csvRaw: false),
                read: ChunkedWrite.transactions(store, query, decoder: decoder)
            )
        let renderer = ObjectRenderer(
            presenter: presenter, store: store, noter: noter, context: session.context,
            warnings: ValueWarnings(store: session.store.path), chunks: chunks)
        // The row and the changes from one snapshot.
        try session.store.snapshot {
            let lookup = try ObjectLookup.find(object, in: session.store, model: session.model.model)
            if case .missing(let reason) = lookup, try !session.store.hasTransactions(query) {
                throw CLIError.notFound(
                    path: session.store.path, what: "no object \(object): \(reason), and no change to it in the history"
                )
            }
            try renderer.render(object, lookup: lookup, bounds: try session.store.numberBounds()) { body in
                try store.readTransactions(query, decoder: decoder, layout: .oneRead) { try $0.forEach(body) }
            }
        }
        renderer.warnings.report(to: context.console)
    }
}
