import Foundation
import HistoryKit

/// A store opened for one command: the store, the model used to decode it,
/// and where and how to write. The REPL keeps one across commands.
struct Session {
    let store: HistoryStore
    let model: ModelResolution
    let context: RenderContext
    let decoder: ChangeDecoder

    /// Opens the store of `options` (as after save `atSave` when given); notices go to stderr.
    static func open(_ options: StoreOptions, atSave: Int? = nil, output: OutputOptions, fallback: OutputFormat = .json)
        throws -> Session
    {
        try open(options, atSave: atSave, context: output.context(fallback: fallback))
    }

    /// Opens the store of `options` (as after save `atSave` when given), to write in `context`.
    static func open(_ options: StoreOptions, atSave: Int? = nil, context: RenderContext) throws -> Session {
        let store = try openStore(options.store, lockTimeout: options.lockTimeout, atSave: atSave)
        let model = try store.resolveModel(userModelPath: options.model)
        return Session(
            store: store, model: model, context: try context.reading(store), decoder: store.makeDecoder(model: model))
    }

    /// Says once on stderr why changes cannot be fully named, for commands that decode them.
    func noteModelProblem() {
        if let problem = model.problem { printError("cdhist: note: \(problem.text)") }
    }

    /// After a listing that found nothing: says on stderr which names it filtered on no
    /// transaction has, with the names like them that some do (`--author Widget`: widget).
    func noteUnmatchedNames(_ query: HistoryQuery) throws {
        let option: [TransactionField: String] = [
            .author: "--author", .contextName: "--context", .bundleID: "--bundle", .processID: "--process",
        ]
        for u in try UnmatchedName.all(in: store, for: query) {
            let like = u.similar.prefix(3).map { "'\(TerminalText.visible($0))'" }.joined(separator: " or ")
            printError(
                "cdhist: note: \(option[u.field] ?? "") '\(TerminalText.visible(u.value))' matches no transaction"
                    + (like.isEmpty ? "" : "; did you mean \(like)?"))
        }
    }

    var presenter: HistoryPresenter { HistoryPresenter(time: context.time) }
}

/// The store at `path`: the REPL's open one when it is the same file (and no save is asked
/// for), else freshly opened (its notices printed on stderr), as after save `atSave` when given.
func openStore(_ path: String, lockTimeout: Double, atSave: Int? = nil) throws -> HistoryStore {
    if atSave == nil, let shared = try REPLEnvironment.current?.store(for: path) { return shared }
    let store = try HistoryStore.open(path, options: OpenOptions(busyTimeout: lockTimeout, atSave: atSave))
    for notice in store.notices { printNotice(notice) }
    return store
}

/// Says on stderr what opening a store found: a warning when the store read is not all its
/// files hold, else a note.
func printNotice(_ notice: StoreNotice) {
    printError("cdhist: \(notice.isWarning ? "warning" : "note"): \(notice.message.text)")
}
