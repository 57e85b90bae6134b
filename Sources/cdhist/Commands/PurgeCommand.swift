import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist purge STORE --before …|--strategy …`: preview a purge, or execute it safely.
struct PurgeCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Preview what a purge would delete and break; with --execute, back up, delete, verify.",
        discussion: CommandHelp.purge)

    static let sessionStore = SessionStorePlacement.first, readsSessionDefaults = true, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var cutoff: CutoffOptions

    @Option(help: ArgumentHelp("Only transactions after this position (narrows the purge).", valueName: "position"))
    var after: String?

    @OptionGroup var names: NameFilterOptions

    @OptionGroup var mergeState: MergeStateOptions

    @Flag(
        help:
            """
            Also count the deleted changes per author and per entity and type (reads every deleted change: \
            seconds on millions).
            """
    )
    var breakdown = false

    @OptionGroup var execution: PurgeExecutionOptions

    @OptionGroup var summary: SummaryOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard cutoff.isGiven else { throw ValidationError("give exactly one of --before and --strategy") }
    }

    func run(_ context: CommandContext) throws {
        let path = storeOptions.store
        let render = outputOptions.context(in: context)
        let store = try context.openStore(path, lockTimeout: storeOptions.lockTimeout)
        let now = try mergeState.evaluationTime(utc: outputOptions.utc)
        let parser = PositionParser(utc: outputOptions.utc, now: Date(timeIntervalSinceReferenceDate: now))
        var query = names.query
        if let after { query.after = try parser.bound(after, option: "--after") }
        guard let cutoff = try cutoff.cutoff(parser: parser) else { return }
        let proposal = try PurgeProposal.make(
            store,
            PurgeRequest(
                cutoff: cutoff, narrowing: query,
                mergeState: try mergeState.request(now: now, utc: outputOptions.utc, model: storeOptions.model),
                breakdown: breakdown))
        mergeState.printNotes(proposal.mergeState, to: context.console)
        let plan = proposal.plan
        let presenter = PurgePresenter(
            time: render.time, limit: summary.limit(render), groupsFamilies: summary.groupsFamilies(render))
        DocumentRenderer.render(
            presenter.preview(
                plan.preview, store: path, rule: proposal.selection.rule, notes: proposal.selection.notes,
                executing: execution.execute, actors: plan.actorsChecked == 0 ? nil : plan.actorsChecked,
                safeBefore: plan.safeBefore.map { PositionParser.text($0, time: render.time) }), context: render)
        guard execution.execute else { return }
        let options = execution.options(lockTimeout: storeOptions.lockTimeout)
        try PurgeExecutor.permit(plan, options: options)
        guard plan.preview.transactionCount > 0 else {
            return context.printError("cdhist: nothing to delete; the store is unchanged")
        }
        guard try PurgeConfirmation.obtained(plan, store: path, yes: execution.yes, in: context) else {
            return context.printError("cdhist: purge cancelled; the store is unchanged")
        }
        // The session's connection closes too (executing closes the plan's store; the session's may be another).
        context.closeSessionStore()
        let result = try PurgeExecutor.execute(
            plan, options: options, stops: context.writeStops()
        ) {
            line in
            if render.terminal.stderrIsTerminal { context.printError("cdhist: \(line)…") }
        }
        DocumentRenderer.render(presenter.result(result, store: path), context: render)
    }
}
