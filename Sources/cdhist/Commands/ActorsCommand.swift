import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist actors STORE --defaults PLIST …`: every actor's merge state.
struct ActorsCommand: ParsableCommand, SessionInputs {
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

    func run() throws {
        let path = try mergeState.storePath(store)
        let historyStore = try openStore(path, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        let context = try outputOptions.context().reading(historyStore)
        let analysis = try mergeState.analyze(
            historyStore, now: try mergeState.evaluationTime(utc: outputOptions.utc), utc: outputOptions.utc,
            always: true)
        guard let report = analysis.report else { return }
        let presenter = MergeStatePresenter(
            time: context.time, now: report.now, inSession: context.terminal.inSession, all: summary.all)
        DocumentRenderer.render(
            presenter.document(report, store: historyStore, sources: analysis.sources), context: context)
    }
}
