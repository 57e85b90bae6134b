import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist diff OLD NEW`: how two snapshots of one store's history differ.
struct DiffCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract:
            """
            Compare two copies of a store: transactions purged, added and rewritten, and what the added ones did \
            to objects.
            """,
        discussion: CommandHelp.diff)

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @Argument(help: ArgumentHelp("The older copy of the store.", valueName: "old"))
    var old: String

    @Argument(help: ArgumentHelp("The newer copy of the store.", valueName: "new"))
    var new: String

    @OptionGroup var booted: BootedOptions

    @Option(
        help: ArgumentHelp(
            "Model to decode both with instead of their caches: a .mom, .momd, .xcdatamodel or .xcdatamodeld.",
            valueName: "path"))
    var model: String?

    @OptionGroup var lock: LockOptions
    @OptionGroup var saves: SavePairOptions
    @OptionGroup var range: RangeOptions
    @OptionGroup var selection: SelectionOptions

    @Flag(help: "Compare stores of different UUIDs (different stores, or one recreated) by transaction number anyway.")
    var force = false

    @OptionGroup var summary: SummaryOptions
    @OptionGroup var outputOptions: OutputOptions

    func run(_ context: CommandContext) throws {
        let render = outputOptions.context(in: context)
        let oldStore = try context.openStore(old, lockTimeout: lock.lockTimeout, atSave: saves.old)
        let newStore = try context.openStore(new, lockTimeout: lock.lockTimeout, atSave: saves.new)
        guard force || oldStore.storeUUID == newStore.storeUUID else {
            throw CLIError.invalidValue(
                option: "new", value: new,
                reason:
                    """
                    a different store from \(old) (UUID \(newStore.storeUUID), not \(oldStore.storeUUID)); \
                    --force compares them anyway
                    """
            )
        }
        var query = try selection.query()
        try range.apply(to: &query, utc: outputOptions.utc)
        let oldModel = try oldStore.resolveModel(userModelPath: model)
        let newModel = try newStore.resolveModel(userModelPath: model)
        for problem in Set([oldModel.problem, newModel.problem].compactMap { $0?.text }).sorted() {
            context.printError("cdhist: note: \(problem)")
        }
        let stop = context.interruption()
        let showProgress = render.terminal.stderrIsTerminal
        let last =
            showProgress ? max(try oldStore.numberBounds().transaction, try newStore.numberBounds().transaction) : 0
        let progress = ProgressLine(context.console, enabled: showProgress, every: 1024, quietFirst: true)
        let diff: HistoryDiff
        do {
            diff = try HistoryDiff.compare(
                old: oldStore, oldDecoder: oldStore.makeDecoder(model: oldModel),
                new: newStore, newDecoder: newStore.makeDecoder(model: newModel), query: query
            ) { number in
                progress.step { "compared through #\(number) of #\(last)" }
                return !(stop?.isRequested ?? false)
            }
        } catch HistoryDiffError.stopped {
            progress.finish(leaving: nil)
            throw StoreError.interrupted(path: new)
        }
        progress.finish(leaving: nil)
        let presenter = DiffPresenter(
            time: render.time, limit: summary.limit(render), groupsFamilies: summary.groupsFamilies(render))
        let old = DiffPresenter.Side(
            path: SavePairOptions.label(self.old, store: oldStore), storeUUID: oldStore.storeUUID,
            transactions: diff.removed.transactions + diff.unchanged.transactions + diff.rewritten.transactions)
        let new = DiffPresenter.Side(
            path: SavePairOptions.label(self.new, store: newStore), storeUUID: newStore.storeUUID,
            transactions: diff.added.transactions + diff.unchanged.transactions + diff.rewritten.transactions)
        DocumentRenderer.render(presenter.document(diff, old: old, new: new), context: render)
        if !diff.isIdentical { throw ExitCode(1) }
    }
}
