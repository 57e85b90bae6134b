import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist check STORE`: health rules for CI; exit 1 on findings at or above `--fail-on`.
struct CheckCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            """
            Run health rules (expired or stale actors, history size, attribution, WAL, orphans, ZCOLUMNS, free \
            pages) for CI.
            """,
        discussion: CommandHelp.check)

    static let sessionStore = SessionStorePlacement.firstUnlessAppGroupFolder, readsSessionDefaults = true,
        takesSessionModel = true

    @Argument(help: ArgumentHelp("The Core Data store file (optional with --group-container).", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var mergeState: MergeStateOptions

    @Option(help: ArgumentHelp("Model to decode with instead of the store's cache.", valueName: "path"))
    var model: String?

    @OptionGroup var rules: CheckRuleOptions

    @Option(
        help: ArgumentHelp(
            "Write for a CI system: github (annotations), junit (XML) or sarif (SARIF 2.1.0).", valueName: "name"))
    var reporter: CheckReporter?

    @OptionGroup var lock: LockOptions

    @OptionGroup var save: SaveOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if reporter != nil && outputOptions.format != nil {
            throw ValidationError("give --reporter or --format, not both")
        }
    }

    func run(_ context: CommandContext) throws {
        let settings = try rules.settings()
        let path = try mergeState.storePath(store)
        let historyStore = try context.openStore(path, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        // A CI reporter's file (XML, SARIF, annotations) takes no first line; the findings are of the save read.
        let render =
            reporter == nil
            ? try outputOptions.context(in: context).reading(historyStore) : outputOptions.context(in: context)
        let now = try mergeState.evaluationTime(utc: outputOptions.utc)
        let result = try HealthCheck.run(
            historyStore,
            HealthCheckRequest(
                mergeState: try mergeState.request(
                    declared: settings.actors, batch: settings.batchActors, now: now, utc: outputOptions.utc,
                    model: model),
                config: settings, only: rules.rule, skip: rules.skip, modelPath: model, nextModelPath: rules.nextModel,
                failOn: rules.failOn.flatMap(Severity.init(rawValue:)), forAPage: false))
        mergeState.printNotes(result.mergeState, to: context.console)
        if let reporter {
            render.output.write(
                reporter.text(
                    CheckOutcome(
                        store: path, rules: result.rules, findings: result.findings, threshold: result.threshold,
                        toolVersion: ToolVersion.number)))
        } else {
            DocumentRenderer.render(
                CheckPresenter.document(
                    result.findings, store: historyStore, threshold: result.threshold, failing: result.failing.count),
                context: render)
        }
        if !result.failing.isEmpty { throw ExitCode(1) }
    }
}
