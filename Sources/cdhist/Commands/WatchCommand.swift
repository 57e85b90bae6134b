import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist watch STORE`: follows the store like `tail -f`, printing each
/// transaction an app commits, with its changes, as soon as it is committed.
struct WatchCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a store like tail -f: print each new transaction and its changes as an app commits them.",
        discussion: CommandHelp.watch)

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var selection: SelectionOptions

    @Option(
        help: ArgumentHelp(
            """
            Start after this position instead of the newest transaction: tx:N, token:FILE, token:STOREUUID:N or a \
            date.
            """,
            valueName: "position"))
    var since: String?

    @Option(help: ArgumentHelp("Stop after this many transactions.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("How often to look at the store, in milliseconds (10 to 60000).", valueName: "ms"))
    var interval: Int = 100

    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
        guard (10...60_000).contains(interval) else {
            throw ValidationError("--interval takes 10 to 60000 milliseconds, not \(interval)")
        }
    }

    func run(_ context: CommandContext) throws {
        let render = outputOptions.context(in: context, fallback: .ndjson)
        let since = try self.since.map { try PositionParser(utc: outputOptions.utc).bound($0, option: "--since") }
        let request = WatchRequest(
            path: storeOptions.store, options: OpenOptions(busyTimeout: storeOptions.lockTimeout),
            filter: try selection.query(), since: since, modelPath: storeOptions.model, limit: limit,
            interval: Double(interval) / 1000)
        var printer: WatchPrinter?
        defer { printer?.finish() }
        try HistoryWatch.run(
            request, stops: context.interruption() ?? StopSignal.onInterrupt(),
            labeler: { try labelOptions.labeler(for: $0, model: $1.model, in: context) },
            started: { watcher in
                for notice in watcher.notices { context.console.printNotice(notice) }
                if let problem = watcher.model.problem { context.printError("cdhist: note: \(problem.text)") }
                printer = WatchPrinter(
                    context: render, presenter: HistoryPresenter(time: render.time), storeUUID: watcher.storeUUID,
                    warnings: ValueWarnings(store: storeOptions.store))
                if render.terminal.stderrIsTerminal {
                    let start = since == nil ? "after #\(watcher.position)" : "after \(self.since ?? "")"
                    context.printError("cdhist: watching \(storeOptions.store) \(start) (Ctrl-C to stop)")
                }
            },
            event: { event, labeler in try printer?.show(event, labeler: labeler) })
    }
}
