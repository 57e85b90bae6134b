import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist report STORE --out FILE`: one self-contained HTML file to look at or attach to a bug report.
struct ReportCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract:
            """
            Write an HTML diagnosis report: summary, timeline, actors, purge preview, check findings, busiest \
            authors and entities.
            """,
        discussion: CommandHelp.report)

    static let sessionStore = SessionStorePlacement.firstUnlessAppGroupFolder, readsSessionDefaults = true,
        takesSessionModel = true
    // HTML whatever the session's format.
    static func takesSessionFormat(_ format: OutputFormat) -> Bool { false }

    @Argument(help: ArgumentHelp("The Core Data store file (optional with --group-container).", valueName: "store"))
    var store: String?
    @OptionGroup var booted: BootedOptions

    @OptionGroup var mergeState: MergeStateOptions
    @OptionGroup var cutoff: CutoffOptions

    @Option(help: ArgumentHelp("Where to write the report (an .html file).", valueName: "file"))
    var out: String

    @Option(help: ArgumentHelp("Model to decode with instead of the store's cache.", valueName: "path"))
    var model: String?

    @Option(
        help: ArgumentHelp("Check thresholds and settings from a JSON file (as check --config).", valueName: "file"))
    var config: String?

    @Option(
        help: ArgumentHelp("Timeline lanes for the busiest authors; the others share one more lane.", valueName: "n"))
    var top = 8

    @Flag(
        help:
            """
            Show times in UTC instead of local time (and read dates without a zone, and count the apple cleaner's \
            calendar days, in UTC).
            """
    )
    var utc = false

    @OptionGroup var summaryOptions: SummaryOptions
    @OptionGroup var lock: LockOptions
    @OptionGroup var save: SaveOptions

    func validate() throws {
        guard (1...100).contains(top) else { throw ValidationError("--top takes 1 to 100 lanes") }
    }

    func run(_ context: CommandContext) throws {
        var settings = try config.map { try CheckConfig.load(path: $0) } ?? CheckConfig()
        if let name = cutoff.strategy { settings.strategy = CleanerStrategy(rawValue: name) }
        let path = try mergeState.storePath(store)
        // Every input hashed before it is read, and again once the page is made (the evidence section).
        var exam = try Examination.begin(
            try mergeState.evidenceInputs(storeName: path, others: [(.model, model), (.config, config)]))
        let historyStore = try context.openStore(path, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        let time = TimeFormatter(utc: utc)
        let now = try mergeState.evaluationTime(utc: utc)
        let diagnosis = try Diagnosis.make(
            historyStore,
            DiagnosisRequest(
                check: HealthCheckRequest(
                    mergeState: try mergeState.request(
                        declared: settings.actors, batch: settings.batchActors, now: now, utc: utc, model: model),
                    config: settings, only: [], skip: [], modelPath: model, nextModelPath: nil, failOn: nil,
                    forAPage: true),
                cutoff: try cutoff.cutoff(parser: try mergeState.positionParser(utc: utc)),
                timelineBuckets: TimelineSVG.bucketCount, cloudKitItems: ReportPage.topCount))
        mergeState.printNotes(diagnosis.check.mergeState, to: context.console)
        // Refused before the page is written, and again when it is (the files may have moved meanwhile).
        let inputs =
            OutputFile.storeFiles(path) + diagnosis.check.mergeState.sources.map(\.path)
            + [config, model].compactMap { $0 } + cutoff.tokenFiles
        try OutputFile.refuseToReplace(out, inputs: inputs)
        guard let mergeReport = diagnosis.check.mergeState.report else { return }
        let content = ReportPage.Content(
            diagnosis, mergeState: mergeReport, store: historyStore, path: path, now: now, time: time,
            all: summaryOptions.all, atSave: try SaveStamp.of(historyStore))
        try exam.finish()
        let html = ReportPage(time: time, svg: TimelineSVG(time: time, utc: utc, top: top)).html(
            content, evidence: (exam, historyStore.access))
        try OutputFile.write(html, to: out, reading: inputs)
        if Terminal.of(context.console, noColor: true).stderrIsTerminal {
            context.printError("cdhist: wrote \(out) (\(ByteCount.text(Int64(html.utf8.count))))")
        }
        do { try exam.verify() } catch {
            context.printError("cdhist: warning: \(describe(error)); the report's Evidence section shows both hashes")
        }
    }
}
