import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist actors STORE --defaults PLIST …`: every actor's merge state.
struct ActorsCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "actors",
        abstract:
            """
            Show each actor's merge state: what it merged, what is pending, whether it is stuck, and each \
            cleaner's cut-off.
            """,
        discussion: CommandHelp.actors)

    static let sessionStore = SessionStorePlacement.firstUnlessAppGroupFolder, readsSessionDefaults = true

    @Argument(help: ArgumentHelp("The Core Data store file (optional with --group-container).", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var mergeState: MergeStateOptions

    @OptionGroup var lock: LockOptions

    @OptionGroup var save: SaveOptions

    @OptionGroup var summary: SummaryOptions

    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let path = try mergeState.storePath(store)
        let historyStore = try context.openStore(path, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        let render = try outputOptions.context(in: context).reading(historyStore)
        let analysis = try mergeState.analyze(
            historyStore, now: try mergeState.evaluationTime(utc: outputOptions.utc), utc: outputOptions.utc,
            always: true, notesTo: context.console)
        guard let report = analysis.report else { return }
        let presenter = MergeStatePresenter(
            time: render.time, now: report.now, inSession: render.terminal.inSession, all: summary.all)
        DocumentRenderer.render(
            presenter.document(report, store: historyStore, sources: analysis.sources), context: render)
    }
}
