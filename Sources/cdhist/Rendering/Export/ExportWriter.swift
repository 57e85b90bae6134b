import Foundation
import HistoryKit

/// `export`'s output: NDJSON or CSV lines formatted in chunks on every core and written in
/// order, or one JSON document; progress on the terminal, warnings gathered per chunk.
struct ExportWriter {
    let context: RenderContext
    /// Timesketch's events (one line per change) rather than the format's lines.
    let events: Bool
    let presenter: HistoryPresenter
    /// Each change's label and values, shown by the presenter.
    let noter: ChangeNoter
    /// Writes plain changes without decoding them; nil decodes every change (labels need it).
    let plain: PlainChangeWriter?
    let storeUUID: String
    let progress: ProgressLine
    let progressText: (Int) -> String
    let warnings: ValueWarnings

    /// Writes every transaction `read` reads (split when its argument is true and the read can
    /// be): JSON in one read; NDJSON and CSV in chunks when they can be.
    func write(bounds: NumberBounds, read: (_ split: Bool) -> ChunkedWrite.Read<ChunkedWrite.Walk>) throws {
        if context.format == .json {
            try document(bounds: bounds, read: read(false))
        } else {
            try lines(read: read(true))
        }
    }

    /// NDJSON or CSV: chunks of transactions formatted on every core at once and
    /// written in order (byte for byte what one thread writes), or in one go when
    /// the query is small, limited or newest first.
    private func lines(read: ChunkedWrite.Read<ChunkedWrite.Walk>) throws {
        let ordered = OrderedOutput(output: context.output)
        let csv = context.format == .csv
        let text = progressText
        let store = warnings.store
        // Formats one chunk of transactions (`forEach` reads them) and hands its bytes to `ordered`.
        // `alone`: the whole read, on this thread (progress is shown as it goes).
        try ChunkedWrite.run(ordered, read) { chunk in
            let (index, alone, forEach, offer) = (chunk.index, chunk.whole, chunk.walk, chunk.spill)
            let local = ValueWarnings(store: store)
            var transactions = 0
            /// Counts a transaction; progress is shown per chunk, or per transaction when alone.
            func counted() {
                transactions += 1
                if alone { progress.step { text(progress.steps) } }
            }
            var bytes: [UInt8]
            let seen = { (change: Change) in local.add(change.warnings) }
            var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: presenter, csvRaw: context.csvRaw)
            if events {
                var writer = TimesketchExport(
                    presenter: presenter, source: warnings.store, atSave: context.stamp?.description)
                func event(_ tx: Transaction, _ changes: ChangeStream) throws {
                    local.add(tx.warnings)
                    try writer.write(tx, noter.noted(changes), seen: seen, spill: offer)
                    counted()
                }
                try forEach({ try event($0.transaction(storeUUID: storeUUID), $1) }, event)
                bytes = writer.bytes
            } else if csv {
                var writer = CSVExport(presenter: presenter, plain: plain, raw: context.csvRaw)
                if index == 0 { writer.bytes = writer.header }
                try forEach(
                    { tx, changes in
                        try writer.write(tx, fields: &fields, noter.noted(changes), seen: seen, spill: offer)
                        counted()
                    },
                    { tx, changes in
                        local.add(tx.warnings)
                        try writer.write(tx, noter.noted(changes), seen: seen, spill: offer)
                        counted()
                    })
                bytes = writer.bytes
            } else {
                var line = JSONBytes(capacity: OrderedOutput.writeThreshold * 2)
                func ended() throws {
                    line.bytes.append(0x0A)
                    line.endRecord()
                    try offer(&line.bytes)
                    counted()
                }
                try forEach(
                    { tx, changes in
                        try presenter.writeTransaction(
                            tx, fields: &fields, changes: noter.noted(changes), format: jsonFormatTag, to: &line,
                            plain: plain,
                            spill: offer, each: seen)
                        try ended()
                    },
                    { tx, changes in
                        local.add(tx.warnings)
                        try presenter.writeTransaction(
                            tx, changes: noter.noted(changes), format: jsonFormatTag, to: &line, plain: plain,
                            spill: offer,
                            each: seen)
                        try ended()
                    })
                bytes = line.bytes
            }
            return (bytes, (local, transactions))
        } finished: { chunk, whole in
            warnings.add(chunk.0)
            if !whole { progress.advance(by: chunk.1) { text(progress.steps) } }
        }
        context.output.flush()
    }

    /// JSON: one document of every transaction, from one read on this thread.
    private func document(bounds: NumberBounds, read: ChunkedWrite.Read<ChunkedWrite.Walk>) throws {
        let list = ListRenderer(
            context: context, kind: "transactions", columns: presenter.transactionColumns(bounds),
            header: [("storeID", .string(storeUUID))])
        func add(_ tx: Transaction, _ changes: ChangeStream) throws {
            warnings.add(tx.warnings)
            try list.addStreaming { line in
                try presenter.writeTransaction(
                    tx, changes: noter.noted(changes), format: nil, to: &line, spill: context.output.spill
                ) { warnings.add($0.warnings) }
            }
            progress.step { progressText(progress.steps) }
        }
        try read { _, _, walk in try walk({ try add($0.transaction(storeUUID: storeUUID), $1) }, add) }
        list.finish()
    }
}
