import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist purge STORE --before …|--strategy …`: preview a purge, or execute it safely.
struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Preview what a purge would delete and break; with --execute, back up, delete, verify.",
        discussion: """
        The preview changes nothing. --execute prints the preview, refuses a busy or read-only store and a purge that \
        would break an actor (unless --allow-expire), writes a backup with SQLite's online backup, deletes in one \
        transaction, checks PRAGMA quick_check and the counts, and restores the backup if either fails.
        """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Delete transactions before this date, tx:N or token:FILE (as deleteHistory(before:)).", valueName: "position"))
    var before: String?

    @Option(help: ArgumentHelp("Use a cleaner's cut-off: \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var strategy: String?

    @Option(help: ArgumentHelp("Only transactions after this position (narrows the purge).", valueName: "position"))
    var after: String?

    @OptionGroup var names: NameFilterOptions

    @OptionGroup var mergeState: MergeStateOptions

    @Flag(help: "Also count the deleted changes per author and per entity and type (reads every deleted change: seconds on millions).")
    var breakdown = false

    @Flag(help: "Delete for real (after a backup). Without it, only the preview.")
    var execute = false

    @Option(help: ArgumentHelp("Where to write the backup (default: beside the store, with a timestamp).", valueName: "path"))
    var backup: String?

    @Flag(name: .customLong("no-backup"), help: "Skip the backup (only when you already have a copy of the store).")
    var noBackup = false

    @Flag(name: .customLong("prune-strings"), help: "Also delete ATRANSACTIONSTRING rows no transaction uses any more.")
    var pruneStrings = false

    @Flag(help: "Run VACUUM afterwards so the file shrinks.")
    var vacuum = false

    @Flag(name: .customLong("allow-expire"), help: "Execute even when the purge expires or breaks an actor.")
    var allowExpire = false

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard (before == nil) != (strategy == nil) else { throw ValidationError("give exactly one of --before and --strategy") }
        if noBackup && backup != nil { throw ValidationError("give --backup or --no-backup, not both") }
        if let strategy, CleanerStrategy(rawValue: strategy) == nil {
            throw ValidationError("unknown strategy '\(strategy)'; known: \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let path = storeOptions.store
        let render = outputOptions.context()
        let plan: PurgePlan
        var rule: String
        do {
            let store = try openStore(path, lockTimeout: storeOptions.lockTimeout)
            let (records, _) = try mergeState.records(storeUUID: store.storeUUID)
            let now = try mergeState.evaluationTime(utc: outputOptions.utc)
            // Without merge state or a strategy there is no actor to break and no cut-off to compute.
            let analyzed = strategy != nil || !records.isEmpty || !mergeState.actor.isEmpty || !mergeState.batchActor.isEmpty
            let report = analyzed ? try MergeStateAnalyzer(store: store, declared: mergeState.actor, batch: mergeState.batchActor,
                                                           records: records, now: now).report() : nil
            var query = HistoryQuery(authors: names.authors, contextNames: names.contextNames, bundleIDs: names.bundleIDs, processIDs: names.processIDs)
            let parser = PositionParser(utc: outputOptions.utc)
            if let after { query.after = try parser.bound(after, option: "--after") }
            if let before {
                query.before = try parser.bound(before, option: "--before")
                rule = "before \(before)"
            } else {
                let strategy = CleanerStrategy(rawValue: strategy ?? "") ?? .apple
                // The analyzer computed every strategy's cut-off from the same actors.
                guard let cutoff = report?.cutoffs.first(where: { $0.strategy == strategy }) else { return }
                rule = "\(strategy.title): \(cutoff.reason)"
                if query.authors.isEmpty, let filter = cutoff.authorFilter { query.authors = filter.map { HistoryQuery.NameFilter.value($0) } }
                // No cut-off: nothing is selected (a transaction number below every real one).
                query.before = cutoff.cutoff.map { HistoryQuery.Bound.date($0) } ?? .transaction(Int64.min)
            }
            plan = try store.planPurge(query, actors: report?.actors ?? [], breakdown: breakdown)
        }
        let presenter = PurgePresenter(time: render.time)
        DocumentRenderer.render(presenter.preview(plan.preview, store: path, rule: rule, executing: execute), context: render)
        guard execute else { return }
        let broken = plan.preview.consequences.map(\.actor)
        if !broken.isEmpty && !allowExpire { throw RepairError.wouldBreakActors(path: path, actors: broken) }
        guard plan.preview.transactionCount > 0 else {
            printError("cdhist: nothing to delete; the store is unchanged")
            return
        }
        if let confirm = REPLEnvironment.current?.confirm,
           !confirm("Delete \(plan.preview.transactionCount) transactions and \(plan.preview.changeCount) changes from \(path)? [y/N] ") {
            printError("cdhist: purge cancelled; the store is unchanged")
            return
        }
        // The REPL's read-only connection must close first: it would share a read-only -shm mapping with the writer.
        REPLEnvironment.current?.closeStore()
        let progress: (String) -> Void = { line in
            if render.terminal.stderrIsTerminal { printError("cdhist: \(line)…") }
        }
        let policy: BackupPolicy = noBackup ? .skip : backup.map { .at($0) } ?? .besideStore
        let result = try PurgeExecutor.execute(path: path, plan: plan,
                                               options: PurgeOptions(backup: policy, pruneStrings: pruneStrings, vacuum: vacuum,
                                                                     busyTimeout: storeOptions.lockTimeout),
                                               progress: progress)
        DocumentRenderer.render(presenter.result(result, store: path), context: render)
    }
}
