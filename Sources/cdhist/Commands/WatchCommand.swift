import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist watch STORE`: follows the store like `tail -f`, printing each
/// transaction an app commits, with its changes, as soon as it is committed.
struct WatchCommand: ParsableCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a store like tail -f: print each new transaction and its changes as an app commits them.",
        discussion: CommandHelp.watch)

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true
    /// How long a store may keep failing to be read (a checkpoint, a lock) before watch gives up.
    static let failureTolerance = 5.0

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

    func run() throws {
        let context = outputOptions.context(fallback: .ndjson)
        let since = try self.since.map { try PositionParser(utc: outputOptions.utc).bound($0, option: "--since") }
        let model = storeOptions.model
        let watcher = try StoreWatcher(
            path: storeOptions.store, options: OpenOptions(busyTimeout: storeOptions.lockTimeout),
            filter: try selection.query(), since: since
        ) { try $0.resolveModel(userModelPath: model) }
        for notice in watcher.notices { printNotice(notice) }
        if let problem = watcher.model.problem { printError("cdhist: note: \(problem.text)") }
        let stop = REPLEnvironment.current?.freshStop() ?? StopSignal.onInterrupt()
        let printer = WatchPrinter(
            context: context, presenter: HistoryPresenter(time: context.time), storeUUID: watcher.storeUUID,
            warnings: ValueWarnings(store: storeOptions.store))
        if context.terminal.stderrIsTerminal {
            let start = since == nil ? "after #\(watcher.position)" : "after \(self.since ?? "")"
            printError("cdhist: watching \(storeOptions.store) \(start) (Ctrl-C to stop)")
        }
        var printed = 0
        var labelled: HistoryStore?
        var failing: Date?
        defer { printer.finish() }
        while !stop.isRequested {
            do {
                let goOn = try watcher.poll { event in
                    switch event {
                    case .transaction(let tx, let changes):
                        if let store = watcher.store, labelled !== store {
                            labelled = store
                            printer.setLabeler(try labelOptions.labeler(for: store, model: watcher.model.model))
                        }
                        try printer.transaction(tx, changes)
                        printed += 1
                        if let limit, printed >= limit { return false }
                    case .purged(let first, let last, let count):
                        printer.purged(first: first, last: last, count: count)
                    case .checkpoint(let walBytes): printer.checkpoint(walBytes: walBytes)
                    case .massDelete(let burst): printer.massDelete(burst)
                    }
                    return !stop.isRequested
                }
                // Let go of the store (the labeler reads it): watch holds no connection between looks.
                printer.setLabeler(nil)
                labelled = nil
                failing = nil
                if !goOn { break }
            } catch let error as WatchError {
                throw error
            } catch let error as StoreError {
                printer.setLabeler(nil)
                labelled = nil
                // A store caught mid-checkpoint or locked for a moment reads on the next look.
                let since = failing ?? Date()
                failing = since
                if Date().timeIntervalSince(since) > Self.failureTolerance { throw error }
            }
            if stop.wait(seconds: Double(interval) / 1000) { break }
        }
    }
}
