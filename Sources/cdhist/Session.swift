import Foundation
import HistoryKit

/// A store opened for one command: the store, the model used to decode it,
/// and where and how to write. The REPL keeps one across commands.
struct Session {
    let store: HistoryStore
    let model: ModelResolution
    let context: RenderContext
    let decoder: ChangeDecoder

    /// Opens the store of `options` in `command`'s context (as after save `atSave` when given);
    /// notices go to stderr.
    static func open(
        _ options: StoreOptions, atSave: Int? = nil, output: OutputOptions, fallback: OutputFormat = .json,
        in command: CommandContext
    ) throws -> Session {
        try open(options, atSave: atSave, context: output.context(in: command, fallback: fallback), in: command)
    }

    /// Opens the store of `options` in `command`'s context (as after save `atSave` when given),
    /// to write in `context`.
    static func open(_ options: StoreOptions, atSave: Int? = nil, context: RenderContext, in command: CommandContext)
        throws -> Session
    {
        let store = try command.openStore(options.store, lockTimeout: options.lockTimeout, atSave: atSave)
        let model = try store.resolveModel(userModelPath: options.model)
        return Session(
            store: store, model: model, context: try context.reading(store), decoder: store.makeDecoder(model: model))
    }

    /// Says once on stderr why changes cannot be fully named, for commands that decode them.
    func noteModelProblem() {
        if let problem = model.problem { context.console.printError("cdhist: note: \(problem.text)") }
    }

    /// After a listing that found nothing: says on stderr which names it filtered on no
    /// transaction has, with the names like them that some do (`--author Widget`: widget).
    func noteUnmatchedNames(_ query: HistoryQuery) throws {
        let option: [TransactionField: String] = [
            .author: "--author", .contextName: "--context", .bundleID: "--bundle", .processID: "--process",
        ]
        for u in try UnmatchedName.all(in: store, for: query) {
            let like = u.similar.prefix(3).map { "'\(TerminalText.visible($0))'" }.joined(separator: " or ")
            context.console.printError(
                "cdhist: note: \(option[u.field] ?? "") '\(TerminalText.visible(u.value))' matches no transaction"
                    + (like.isEmpty ? "" : "; did you mean \(like)?"))
        }
    }

    var presenter: HistoryPresenter { HistoryPresenter(time: context.time) }
}
