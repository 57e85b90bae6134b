import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist check STORE`: health rules for CI; exit 1 on findings at or above `--fail-on`.
struct CheckCommand: ParsableCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run health rules (expired or stale actors, history size, attribution, WAL, orphans, ZCOLUMNS, free pages) for CI.",
        discussion: """
        Exit status: 0 when nothing is at or above --fail-on (default error), 1 when something is, 2 on usage or file errors. \
        Rules: \(Checker.rules.map { "\($0.id) (\($0.severity.rawValue))" }.joined(separator: ", ")).
        """)

    static let sessionStore = SessionStorePlacement.firstUnlessAppGroupFolder, readsSessionDefaults = true, takesSessionModel = true

    @Argument(help: ArgumentHelp("The Core Data store file (optional with --group-container).", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var mergeState: MergeStateOptions

    @Option(help: ArgumentHelp("Model to decode with instead of the store's cache.", valueName: "path"))
    var model: String?

    @Option(name: .customLong("next-model"),
            help: ArgumentHelp("The model the app's next version ships: report the history its migration would truncate.", valueName: "path"))
    var nextModel: String?

    @Option(name: .customLong("fail-on"), help: ArgumentHelp("Exit 1 for findings of this severity or worse: error, warning or info.", valueName: "severity"))
    var failOn: String?

    @Option(help: ArgumentHelp("Run only this rule (repeatable).", valueName: "id"))
    var rule: [String] = []

    @Option(help: ArgumentHelp("Do not run this rule (repeatable).", valueName: "id"))
    var skip: [String] = []

    @Option(help: ArgumentHelp("Thresholds and settings from a JSON file (see the manual).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("The app's cleaner, for the CloudKit rule.", valueName: "name"))
    var strategy: String?

    @Option(name: .customLong("max-export-pending"),
            help: ArgumentHelp("Transactions CloudKit may have to export before cloudkit-export-behind warns (default 100).", valueName: "n"))
    var maxExportPending: Int?

    @Option(help: ArgumentHelp("Write for a CI system: github (annotations), junit (XML) or sarif (SARIF 2.1.0).", valueName: "name"))
    var reporter: CheckReporter?

    @OptionGroup var lock: LockOptions

    @OptionGroup var save: SaveOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        let known = Set(Checker.rules.map(\.id))
        for id in rule + skip where !known.contains(id) {
            throw ValidationError("unknown rule '\(id)'; rules: \(known.sorted().joined(separator: ", "))")
        }
        if let failOn, Severity(rawValue: failOn) == nil { throw ValidationError("--fail-on takes error, warning or info") }
        if let strategy, CleanerStrategy(rawValue: strategy) == nil { throw ValidationError("unknown strategy '\(strategy)'") }
        if let maxExportPending, maxExportPending < 0 { throw ValidationError("--max-export-pending takes a count of 0 or more") }
        if reporter != nil && outputOptions.format != nil { throw ValidationError("give --reporter or --format, not both") }
    }

    func run() throws {
        var settings = try config.map { try CheckConfig.load(path: $0) } ?? CheckConfig()
        if let strategy { settings.strategy = CleanerStrategy(rawValue: strategy) }
        if let maxExportPending { settings.maxExportPendingTransactions = maxExportPending }
        let threshold = failOn.flatMap(Severity.init(rawValue:)) ?? settings.failOn ?? .error
        let path = try mergeState.storePath(store)
        let historyStore = try openStore(path, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        // A CI reporter's file (XML, SARIF, annotations) takes no first line; the findings are of the save read.
        let context = reporter == nil ? try outputOptions.context().reading(historyStore) : outputOptions.context()
        let now = try mergeState.evaluationTime(utc: outputOptions.utc)
        let analysis = try mergeState.analyze(historyStore, declared: settings.actors, batch: settings.batchActors, now: now, utc: outputOptions.utc, model: model)
        let next = try nextModel.map { try ModelLoader.load(path: $0).model }
        let findings = try Self.findings(CheckContext(store: historyStore, mergeState: analysis.report, mirroring: analysis.mirroring, config: settings,
                                                      model: try historyStore.resolveModel(userModelPath: model), now: now, nextModel: next),
                                         only: rule, skip: skip)
        let failing = findings.filter { $0.severity >= threshold }
        if let reporter {
            context.output.write(reporter.text(CheckOutcome(store: path, rules: Checker.rules(only: rule, skip: skip + settings.skip),
                                                            findings: findings, threshold: threshold, toolVersion: ToolVersion.number)))
        } else {
            DocumentRenderer.render(CheckPresenter.document(findings, store: historyStore, threshold: threshold, failing: failing.count), context: context)
        }
        if !failing.isEmpty { throw ExitCode(1) }
    }

    /// The findings of the rules in `only` (all when empty) but not in `skip` or the settings' skip list, worst first.
    static func findings(_ context: CheckContext, only: [String] = [], skip: [String] = []) throws -> [Finding] {
        try Checker.run(context, only: only, skip: skip + context.config.skip).sorted { ($1.severity, $0.ruleID) < ($0.severity, $1.ruleID) }
    }
}
