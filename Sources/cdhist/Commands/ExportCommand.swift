import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist export STORE`: every matching transaction with its decoded
/// changes, streamed as NDJSON (one transaction per line).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Stream transactions with their decoded changes as NDJSON (one transaction per line), JSON, or CSV (one row per change).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filters: FilterOptions

    @Option(help: ArgumentHelp("Write to this file instead of stdout (atomically: it appears only when complete; nothing is left when interrupted).", valueName: "file"))
    var out: String?

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if let format = outputOptions.format, format == .table {
            throw ValidationError("export writes ndjson, json or csv, not table")
        }
    }

    func run() throws {
        let target = try out.map(AtomicFile.init)
        let output = target.map { Output(handle: $0.handle) } ?? Output()
        var opts = outputOptions
        opts.format = opts.format ?? .ndjson
        let session = try Session.open(storeOptions, output: opts)
        let context = RenderContext(format: opts.format ?? .ndjson, terminal: session.context.terminal,
                                    time: session.context.time, output: output)
        session.noteModelProblem()
        let query = try filters.query(utc: outputOptions.utc)
        let showProgress = session.context.terminal.stderrIsTerminal
        // The query's transactions when they can be counted without reading changes.
        let total = showProgress ? try session.store.transactionCount(query) : nil
        let progressText = { (steps: Int) in total.map { "\(steps)/\($0) transactions" } ?? "\(steps) transactions" }
        let progress = ProgressLine(enabled: showProgress, every: 256)
        let warnings = ValueWarnings(store: session.store.path)
        do {
            if context.format == .json {
                try exportDocument(session, context: context, query: query, progress: progress, text: progressText, warnings: warnings)
            } else {
                try exportLines(session, context: context, query: query, progress: progress, text: progressText, warnings: warnings)
            }
            progress.finish(leaving: progressText(progress.steps))
            try target?.commit(output)
        } catch {
            target?.discard()
            throw error
        }
        warnings.report()
    }

    /// NDJSON or CSV: chunks of transactions formatted on every core at once and
    /// written in order (byte for byte what one thread writes), or in one go when
    /// the query is small, limited or newest first.
    private func exportLines(_ session: Session, context: RenderContext, query: HistoryQuery,
                             progress: ProgressLine, text: @escaping (Int) -> String, warnings: ValueWarnings) throws {
        let ordered = OrderedOutput(output: context.output)
        let presenter = session.presenter
        let csv = context.format == .csv
        let plain = PlainChangeWriter(decoder: session.decoder)
        /// Formats one chunk of transactions (`forEach` reads them) and hands its bytes to `ordered`.
        /// `alone`: the only chunk, read on this thread (progress is shown as it goes).
        func chunk(_ index: Int, alone: Bool = false, _ forEach: ((Transaction, ChangeStream) throws -> Void) throws -> Void) throws {
            do {
                try format(index, alone: alone, forEach)
            } catch {
                ordered.stop(because: error)
                throw error
            }
        }
        func format(_ index: Int, alone: Bool, _ forEach: ((Transaction, ChangeStream) throws -> Void) throws -> Void) throws {
            let local = ValueWarnings(store: session.store.path)
            var transactions = 0
            /// Counts a transaction; progress is shown per chunk, or per transaction when alone.
            func counted() {
                transactions += 1
                if alone { progress.step { text(progress.steps) } }
            }
            let offer = { (bytes: inout [UInt8]) in try ordered.offer(&bytes, chunk: index) }
            var bytes: [UInt8]
            if csv {
                var writer = CSVExport(presenter: presenter, plain: plain)
                if index == 0 { writer.bytes = CSVExport.header }
                try forEach { tx, changes in
                    local.add(tx.warnings)
                    try writer.write(tx, changes, seen: { local.add($0.warnings) }, spill: offer)
                    counted()
                }
                bytes = writer.bytes
            } else {
                var line = JSONBytes(capacity: OrderedOutput.writeThreshold * 2)
                try forEach { tx, changes in
                    local.add(tx.warnings)
                    try presenter.writeTransaction(tx, changes: changes, format: jsonFormatTag, to: &line, plain: plain, spill: offer) { local.add($0.warnings) }
                    line.bytes.append(0x0A)
                    line.endRecord()
                    try offer(&line.bytes)
                    counted()
                }
                bytes = line.bytes
            }
            try ordered.finish(&bytes, chunk: index) {
                warnings.add(local)
                if !alone { progress.advance(by: transactions) { text(progress.steps) } }
            }
        }
        do {
            let chunked = try session.store.readInChunks(query, decoder: session.decoder) { try chunk($0.index, $0.forEach) }
            if !chunked {
                try chunk(0, alone: true) { try session.store.forEachTransactionWithChanges(query, decoder: session.decoder, $0) }
            }
        } catch {
            // A chunk stopped because another failed: that failure is the one to tell.
            throw ordered.failure ?? error
        }
        context.output.flush()
    }

    /// JSON: one document of every transaction, in one go.
    private func exportDocument(_ session: Session, context: RenderContext, query: HistoryQuery,
                                progress: ProgressLine, text: @escaping (Int) -> String, warnings: ValueWarnings) throws {
        let presenter = session.presenter
        let list = ListRenderer(context: context, kind: "transactions", columns: presenter.transactionColumns(try session.store.numberBounds()),
                                header: [("storeID", .string(session.store.storeUUID))])
        try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
            warnings.add(tx.warnings)
            try list.addStreaming { line in
                try presenter.writeTransaction(tx, changes: changes, format: nil, to: &line, spill: context.output.spill) { warnings.add($0.warnings) }
            }
            progress.step { text(progress.steps) }
        }
        list.finish()
    }
}
