import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist purge STORE --before …|--strategy …`: preview a purge, or execute it safely.
struct PurgeCommand: ParsableCommand, SessionInputs {
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

    @Flag(help: "Delete for real (after a backup). Without it, only the preview.")
    var execute = false

    @Option(
        help: ArgumentHelp(
            "Where to write the backup (default: beside the store, with a timestamp).", valueName: "path"))
    var backup: String?

    @Flag(name: .customLong("no-backup"), help: "Skip the backup (only when you already have a copy of the store).")
    var noBackup = false

    @Flag(name: .customLong("prune-strings"), help: "Also delete ATRANSACTIONSTRING rows no transaction uses any more.")
    var pruneStrings = false

    @Flag(help: "Run VACUUM afterwards so the file shrinks.")
    var vacuum = false

    @Flag(name: .customLong("allow-expire"), help: "Execute even when the purge expires or breaks an actor.")
    var allowExpire = false

    @Flag(
        help:
            """
            Do not ask before a purge that deletes every transaction or knows no app's position (needed without a \
            terminal to ask on; a session asks before every purge).
            """
    )
    var yes = false

    @OptionGroup var summary: SummaryOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard cutoff.isGiven else { throw ValidationError("give exactly one of --before and --strategy") }
        if noBackup && backup != nil { throw ValidationError("give --backup or --no-backup, not both") }
    }

    func run() throws {
        let path = storeOptions.store
        let render = outputOptions.context()
        let store = try openStore(path, lockTimeout: storeOptions.lockTimeout)
        let now = try mergeState.evaluationTime(utc: outputOptions.utc)
        // Without merge state or a strategy there is no actor to break and no cut-off to compute.
        let analysis = try mergeState.analyze(
            store, now: now, utc: outputOptions.utc, model: storeOptions.model, always: cutoff.strategy != nil)
        let report = analysis.report
        var query = HistoryQuery(
            authors: names.authors, contextNames: names.contextNames, bundleIDs: names.bundleIDs,
            processIDs: names.processIDs)
        let parser = PositionParser(utc: outputOptions.utc, now: Date(timeIntervalSinceReferenceDate: now))
        if let after { query.after = try parser.bound(after, option: "--after") }
        guard let selection = try cutoff.selection(narrowing: query, report: report, parser: parser) else { return }
        let plan = try store.planPurge(selection, mergeState: analysis, breakdown: breakdown)
        let presenter = PurgePresenter(
            time: render.time, limit: summary.limit(render), groupsFamilies: summary.groupsFamilies(render))
        DocumentRenderer.render(
            presenter.preview(
                plan.preview, store: path, rule: selection.rule, notes: selection.notes, executing: execute,
                actors: plan.actorsChecked == 0 ? nil : plan.actorsChecked,
                safeBefore: plan.safeBefore.map { PositionParser.text($0, time: render.time) }), context: render)
        guard execute else { return }
        let policy: BackupPolicy = noBackup ? .skip : backup.map { .at($0) } ?? .besideStore
        let options = PurgeOptions(
            backup: policy, pruneStrings: pruneStrings, vacuum: vacuum, busyTimeout: storeOptions.lockTimeout,
            allowBreakingActors: allowExpire)
        try PurgeExecutor.permit(plan, options: options)
        guard plan.preview.transactionCount > 0 else {
            return printError("cdhist: nothing to delete; the store is unchanged")
        }
        guard try PurgeConfirmation.obtained(plan, store: path, yes: yes) else {
            return printError("cdhist: purge cancelled; the store is unchanged")
        }
        // The session's connection closes too (executing closes the plan's store; the session's may be another).
        REPLEnvironment.current?.closeStore()
        let result = try PurgeExecutor.execute(plan, options: options, stops: REPLEnvironment.current?.freshStop()) {
            line in
            if render.terminal.stderrIsTerminal { printError("cdhist: \(line)…") }
        }
        DocumentRenderer.render(presenter.result(result, store: path), context: render)
    }
}
