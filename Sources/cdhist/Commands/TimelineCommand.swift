import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist timeline STORE`: transactions per author over time, with merge positions and a purge cut-off.
struct TimelineCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract:
            """
            Draw transactions per author (or context, bundle, process) over time, with each actor's merge \
            position and a purge cut-off.
            """,
        discussion: CommandHelp.timeline)

    static let sessionStore = SessionStorePlacement.firstUnlessAppGroupFolder, readsSessionDefaults = true

    @Argument(help: ArgumentHelp("The Core Data store file (optional with --group-container).", valueName: "store"))
    var store: String?

    @OptionGroup var booted: BootedOptions

    @OptionGroup var mergeState: MergeStateOptions

    @OptionGroup var range: RangeOptions

    @Option(
        help: ArgumentHelp(
            "Lanes by author, context, bundle or process (most of Apple's transactions have no author).",
            valueName: "field"))
    var by: FieldName = .author

    @OptionGroup var marker: PurgeMarkerOptions

    @Option(
        help: ArgumentHelp(
            "Lanes for the busiest authors (or other values of --by); the others share one more lane.", valueName: "n"))
    var top = 6

    @Option(help: ArgumentHelp("Columns to fill (default: the width tables fit, else 80).", valueName: "columns"))
    var width: Int?

    @Flag(help: "Draw with plain ASCII characters instead of Unicode blocks.")
    var ascii = false

    @OptionGroup var lock: LockOptions

    @OptionGroup var save: SaveOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard (1...100).contains(top) else { throw ValidationError("--top takes 1 to 100 lanes") }
        if let width, !(40...1000).contains(width) { throw ValidationError("--width takes 40 to 1000 columns") }
    }

    func run(_ context: CommandContext) throws {
        let path = try mergeState.storePath(store)
        let historyStore = try context.openStore(path, lockTimeout: lock.lockTimeout, atSave: save.atSave)
        let render = try outputOptions.context(in: context).reading(historyStore)
        let now = try mergeState.evaluationTime(utc: outputOptions.utc)
        let parser = try mergeState.positionParser(utc: outputOptions.utc)
        let span = HistoryQuery(
            after: try range.after.map { try parser.bound($0, option: "--after") },
            before: try range.before.map { try parser.bound($0, option: "--before") })
        // The terminal's width (or COLUMNS) within the range --width takes.
        let columns = width ?? render.terminal.width.map { min(max($0, 40), 1000) } ?? 80
        let timeline = try HistoryTimeline.read(
            historyStore,
            TimelineRequest(
                by: by.transactionField, span: span,
                mergeState: try mergeState.request(now: now, utc: outputOptions.utc),
                cutoff: try marker.cutoff.cutoff(parser: parser, option: "--purge-before"))
        ) { TimelineChart.Layout(width: columns, transactionCount: $0).chartWidth }
        mergeState.printNotes(timeline.mergeState, to: context.console)
        let markers = TimelineMarker.all(
            actors: timeline.mergeState.report?.actors ?? [], cutoff: timeline.cutoff, time: render.time, now: now)
        guard render.format == .table else {
            DocumentRenderer.render(
                TimelinePresenter(time: render.time).document(timeline.activity, markers: markers, store: historyStore),
                context: render)
            return
        }
        let chart = TimelineChart(
            layout: TimelineChart.Layout(width: columns, transactionCount: timeline.transactionCount),
            glyphs: ascii ? .ascii : .unicode, context: render, top: top, utc: outputOptions.utc)
        for line in chart.lines(
            timeline.activity, markers: markers, store: URL(fileURLWithPath: path).lastPathComponent, window: span)
        { render.output.line(line) }
        render.output.flush()
    }
}
