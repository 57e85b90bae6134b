import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist export STORE`: every matching transaction with its decoded
/// changes, streamed as NDJSON (one transaction per line).
struct ExportCommand: HistoryCommand, SessionInputs {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            """
            Stream transactions with their decoded changes as NDJSON (one transaction per line), JSON, CSV (one \
            row per change), or Timesketch events (one per change).
            """
    )

    static let sessionStore = SessionStorePlacement.first, takesSessionModel = true
    // Lines of JSON only: a session's table or CSV format is not an export's.
    static func takesSessionFormat(_ format: OutputFormat) -> Bool { format == .json || format == .ndjson }

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var save: SaveOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var labelOptions: LabelOptions
    @OptionGroup var valueOptions: ValueOptions

    @Option(
        help: ArgumentHelp(
            """
            Write to this file instead of stdout (atomically: it appears only when complete; nothing is left when \
            interrupted).
            """,
            valueName: "file"))
    var out: String?

    @OptionGroup var outputOptions: ExportOutputOptions

    func run(_ context: CommandContext) throws {
        let session = try Session.open(
            storeOptions, atSave: save.atSave, context: outputOptions.context(in: context), in: context)
        let inputs =
            OutputFile.storeFiles(session.store.path) + (labelOptions.labelsFrom.map(OutputFile.storeFiles) ?? [])
            + [storeOptions.model].compactMap { $0 }
            + filters.range.tokenFiles
        let target = try out.map { try OutputFile($0, reading: inputs) }
        let output = target.map { Output(handle: $0.handle) } ?? Output(console: context.console)
        let render = session.context.writing(to: output, eventLines: outputOptions.format == .timesketch)
        session.noteModelProblem()
        let query = try filters.query(utc: outputOptions.flags.utc)
        let noter = try labelOptions.noter(with: valueOptions, session, in: context)
        var presenter = session.presenter
        presenter.show(noter)
        let showProgress = session.context.terminal.stderrIsTerminal
        // The query's transactions when they can be counted without reading changes.
        let total = showProgress ? try session.store.transactionCount(query) : nil
        let progressText = { (steps: Int) in total.map { "\(steps)/\($0) transactions" } ?? "\(steps) transactions" }
        let progress = ProgressLine(context.console, enabled: showProgress, every: 256)
        let warnings = ValueWarnings(store: session.store.path)
        // Labels and values are looked up on one connection, in order: read in one go then.
        let inOrder = !noter.isEmpty
        let writer = ExportWriter(
            context: render, events: outputOptions.format == .timesketch, presenter: presenter, noter: noter,
            plain: inOrder ? nil : PlainChangeWriter(decoder: session.decoder, csvRaw: render.csvRaw),
            storeUUID: session.store.storeUUID, progress: progress, progressText: progressText, warnings: warnings)
        do {
            let store = session.store
            let decoder = session.decoder
            try writer.write(
                bounds: try store.numberBounds(),
                read: { ChunkedWrite.transactions(store, query, decoder: decoder, split: $0 && !inOrder) })
            progress.finish(leaving: progressText(progress.steps))
            try target?.commit(output)
        } catch {
            target?.discard()
            throw error
        }
        warnings.report(to: context.console)
        if progress.steps == 0 { try session.noteUnmatchedNames(query) }
    }
}
