import Foundation
import HistoryKit

/// Streams a list of records in the chosen format. Tables size their columns
/// from the first rows (then keep those widths), so memory stays bounded.
final class ListRenderer {
    private let context: RenderContext
    private let kind: String
    private let columns: [Column]
    private let header: [(String, JSONValue)]
    private var pending: [[Cell]] = []
    /// Set from the first rows; later rows keep it.
    private var layout: TableLayout?
    private var count = 0
    /// The records added so far.
    var added: Int { count }
    private var line: JSONBytes
    private let prettyIndent: Int?
    /// A table row's lines, as bytes (reused from row to row).
    private var rowBytes: [UInt8] = []
    /// Rows after the laid-out ones, gathered for ``formatter``, and the bytes of their text.
    private var batch: [[Cell]] = []
    private var batchBytes = 0
    /// Writes the rows of a long table on another core, once a batch is full.
    private var formatter: BatchWriter<[Cell]>?
    /// Records of a list whose records may be formatted on another thread (``add(_:)``), gathered
    /// once the list has begun (its first record written, a table laid out) for ``recordWriter``,
    /// which formats and writes them there.
    private var records: [any ListRecord & Sendable] = []
    private var recordWriter: BatchWriter<any ListRecord & Sendable>?
    /// The header of a CSV list written from records (nil until the first; none without a row).
    private var recordNames: [String]?

    /// `kind` names the JSON array (`transactions`, `changes`, …); `header`
    /// adds fields before it in the JSON document. A table is laid out from its
    /// first rows unless `layout` is given (a document knows all of its rows).
    init(
        context: RenderContext, kind: String, columns: [Column], header: [(String, JSONValue)] = [],
        layout: TableLayout? = nil
    ) {
        self.context = context
        self.kind = kind
        self.columns = columns
        self.header = header
        if let layout, context.format == .table {
            self.layout = layout
            context.output.line(context.style(layout.header(columns), .bold))
        }
        // JSON lists put each record on its own lines, indented by two (pretty on a terminal).
        prettyIndent = context.format == .json && context.terminal.stdoutIsTerminal ? 2 : nil
        line = JSONBytes(capacity: 1 << 16, prettyIndent: prettyIndent)
    }

    /// Adds one row of a table (CSV, JSON and NDJSON are written from records).
    func add(cells: [Cell]) {
        switch context.format {
        case .table:
            if layout == nil {
                pending.append(cells)
                if pending.count >= TableSample.rowCount { flushPending() }
            } else {
                writeRow(cells)
            }
        case .csv, .json, .ndjson:
            return
        }
        count += 1
    }

    /// Adds one record: JSON and NDJSON stream it straight to bytes, CSV writes its members in
    /// the export's dialect (``CSVRecord``), a table uses the cells.
    func add(cells: @autoclosure () -> [Cell], record: some JSONRecord) {
        switch context.format {
        case .json, .ndjson:
            addStreaming { record.write(format: context.format == .ndjson ? jsonFormatTag : nil, to: &$0) }
        case .csv:
            addCSV(record.json)
        case .table:
            add(cells: cells())
        }
    }

    /// Adds a record that may be formatted on another thread: once the list has begun (its
    /// first record written, a table laid out from its first rows), records are formatted in
    /// batches on another core while the caller reads the next ones.
    func add(_ record: some ListRecord & Sendable) {
        guard Cores.usable > 1, let writer = recordWriter ?? startRecordWriter() else {
            return add(cells: record.cells, record: record)
        }
        records.append(record)
        count += 1
        guard records.count >= BatchWriter<any ListRecord & Sendable>.batchSize else { return }
        writer.submit(records)
        records.removeAll(keepingCapacity: true)
    }

    /// Starts the writer of the records from here on, once the list has begun (nil before: the
    /// record is added here). It formats them as ``add(cells:record:)`` would: a table's rows in
    /// its layout, CSV rows under the first record's names, JSON records each after its
    /// separator, NDJSON lines.
    private func startRecordWriter() -> BatchWriter<any ListRecord & Sendable>? {
        let output = context.output
        let writer: BatchWriter<any ListRecord & Sendable>
        switch context.format {
        case .table:
            guard let layout else { return nil }
            let columns = columns
            let style = context.color ? context.style : nil
            writer = BatchWriter(output: output) { record, bytes in
                layout.write(record.cells, columns: columns, style: style, to: &bytes)
            }
        case .csv:
            guard let names = recordNames else { return nil }
            let raw = context.csvRaw
            writer = BatchWriter(output: output) { record, bytes in
                CSVRecord.row(record.json, under: names, raw: raw, to: &bytes)
                bytes.append(0x0A)
            }
        case .json, .ndjson:
            guard count > 0 else { return nil }
            let json = context.format == .json
            var line = JSONBytes(capacity: 1 << 16, prettyIndent: prettyIndent)
            writer = BatchWriter(output: output) { record, bytes in
                line.reset()
                record.write(format: json ? nil : jsonFormatTag, to: &line)
                if json { bytes += Self.jsonSeparator }
                bytes += line.bytes
                if !json { bytes.append(0x0A) }
            }
        }
        recordWriter = writer
        return writer
    }

    /// A record as a CSV row under the names of the first record's members (a member another
    /// record lacks is an empty cell), and `warnings`, which a record has only when it has some.
    private func addCSV(_ object: JSONValue) {
        let members = CSVRecord.members(object)
        if recordNames == nil {
            let names = members.map(\.name)
            recordNames = names.contains("warnings") ? names : names + ["warnings"]
            context.output.line(CSV.row(recordNames ?? [], raw: context.csvRaw))
        }
        context.output.line(CSV.row(CSVRecord.cells(members, under: recordNames ?? []), raw: context.csvRaw))
        count += 1
    }

    /// Between two records of a JSON list, and before the first.
    static let jsonSeparator = Array(",\n  ".utf8), jsonIndent = Array("\n  ".utf8)

    /// Whether ``addInChunks(_:warnings:_:)`` writes this list: compact JSON or NDJSON.
    var takesChunks: Bool {
        context.format == .ndjson || (context.format == .json && !context.terminal.stdoutIsTerminal)
    }

    /// Adds records formatted in numbered chunks on several threads at once and written in order
    /// (``ChunkedWrite``), when ``takesChunks``: `format` reads a chunk of transactions or of changes with the
    /// walk it is given and adds its records; the warnings of their values are added to `warnings` in chunk order.
    func addInChunks<W>(
        _ read: ChunkedWrite.Read<W>, warnings: ValueWarnings,
        _ format: @escaping (W, inout ChunkRecords) throws -> Void
    ) throws {
        let json = context.format == .json
        try addChunks(
            OrderedOutput(
                output: context.output, separator: json ? Self.jsonSeparator : nil,
                opening: json ? jsonOpening() + Self.jsonIndent : []),
            separator: json ? Self.jsonSeparator : [], terminator: json ? [] : [0x0A], read, warnings: warnings, format)
    }

    /// Whether ``addCSVInChunks(header:_:warnings:_:)`` writes this list: CSV.
    var takesCSVChunks: Bool { context.format == .csv }

    /// The rows of a CSV list written from records of this renderer's list, under `header`.
    func csvRows(header: [String]) -> CSVRecordRows { CSVRecordRows(names: header, raw: context.csvRaw) }

    /// Adds CSV rows formatted in numbered chunks on several threads at once and written in order
    /// (``ChunkedWrite``), under `header` (written before the first row, none without a row):
    /// `format` reads a chunk with the walk it is given and adds its rows, each without its line's
    /// end; the warnings of their values are added to `warnings` in chunk order.
    func addCSVInChunks<W>(
        header: CSVRecordRows, _ read: ChunkedWrite.Read<W>, warnings: ValueWarnings,
        _ format: @escaping (W, inout ChunkRecords) throws -> Void
    ) throws {
        try addChunks(
            OrderedOutput(output: context.output, opening: Array((CSV.row(header.names, raw: header.raw) + "\n").utf8)),
            separator: [], terminator: [0x0A], read, warnings: warnings, format)
    }

    /// Adds the records `format` adds to each chunk `read` reads, each chunk's joined with
    /// `separator` and each record ended with `terminator`, written through `ordered`.
    private func addChunks<W>(
        _ ordered: OrderedOutput, separator: [UInt8], terminator: [UInt8], _ read: ChunkedWrite.Read<W>,
        warnings: ValueWarnings, _ format: @escaping (W, inout ChunkRecords) throws -> Void
    ) throws {
        var added = 0
        let store = warnings.store
        try ChunkedWrite.run(
            ordered, read,
            { chunk in
                var records = ChunkRecords(
                    spill: chunk.spill, separator: separator, terminator: terminator, store: store)
                try format(chunk.walk, &records)
                return (records.line.bytes, (records.warnings, records.count))
            },
            finished: { chunk, _ in
                warnings.add(chunk.0)
                added += chunk.1
            })
        count += added
    }

    /// Whether ``addTableInChunks(_:_:warnings:_:)`` writes this list: a table.
    var takesTableChunks: Bool { context.format == .table }

    /// Adds a table's rows: `sample`, its first rows, laid out and written at once, then, unless
    /// they are all of them, the rows `read` reads (which passes over the sample's) formatted by
    /// `format` in numbered chunks on several threads at once and written in order
    /// (``ChunkedWrite``), as one thread writes them. The warnings of their values are added to
    /// `warnings` in chunk order.
    func addTableInChunks<W>(
        _ sample: TableSample, _ read: ChunkedWrite.Read<W>, warnings: ValueWarnings,
        _ format: @escaping (W, TableRowWriter, inout ChunkRecords) throws -> Void
    ) throws {
        // Laid out from the sample and written as a table's first rows are.
        pending = sample.rows
        flushPending()
        context.output.flush()
        warnings.add(sample.warnings)
        count += sample.rows.count
        guard !sample.isWhole, let layout else { return }
        let writer = TableRowWriter(layout: layout, columns: columns, style: context.color ? context.style : nil)
        var added = 0
        let store = warnings.store
        try ChunkedWrite.run(
            OrderedOutput(output: context.output), read,
            { chunk in
                var rows = ChunkRecords(spill: chunk.spill, separator: [], terminator: [], store: store)
                try format(chunk.walk, writer, &rows)
                return (rows.line.bytes, (rows.warnings, rows.count))
            },
            finished: { chunk, _ in
                warnings.add(chunk.0)
                added += chunk.1
            })
        count += added
    }

    /// Adds one JSON or NDJSON record that `write` writes to the sink, which
    /// it may spill to the output as it goes (``Output/spill(_:)``: the output is
    /// ready for the bytes: the separator before the record is written).
    func addStreaming(_ write: (inout JSONBytes) throws -> Void) rethrows {
        let out = context.output
        line.reset()
        if context.format == .json {
            if count == 0 { beginJSON() }
            out.write(bytes: count == 0 ? Self.jsonIndent : Self.jsonSeparator)
        }
        try write(&line)
        if context.format == .ndjson { line.bytes.append(0x0A) }
        out.write(bytes: line.bytes)
        count += 1
    }

    /// Ends the list (writes the closing bracket, or a table's last rows).
    func finish() {
        let out = context.output
        switch context.format {
        case .json:
            endBatches()
            if count == 0 { beginJSON() }
            out.line(count == 0 ? "]}" : "\n]}")
        case .ndjson:
            endBatches()
        case .csv:
            endBatches()
        case .table:
            flushPending()
            endBatches()
            if count == 0 { out.line(context.style("(none)", .dim)) }
        }
        out.flush()
    }

    /// A renderer left without ``finish()`` (its command failed) still writes the rows it was given.
    deinit { endBatches() }

    /// Writes the rows and records gathered, and waits for the writers to write what they hold.
    private func endBatches() {
        if let recordWriter {
            if !records.isEmpty { recordWriter.submit(records) }
            recordWriter.end()
            self.recordWriter = nil
        }
        records = []
        if let formatter {
            if !batch.isEmpty { formatter.submit(batch) }
            formatter.end()
            self.formatter = nil
        } else {
            for row in batch { writeRowNow(row) }
        }
        batch = []
        batchBytes = 0
    }

    private func beginJSON() {
        context.output.write(bytes: jsonOpening())
    }

    /// The JSON document up to its list's opening bracket.
    private func jsonOpening() -> [UInt8] {
        var pairs: [(String, JSONValue)] =
            [("format", .string(jsonFormatTag)), ("kind", .string(kind))] + context.documentMembers
        pairs += header
        var bytes: [UInt8] = []
        JSONValue.object(pairs).write(to: &bytes)
        bytes.removeLast()  // reopen the object to append the array
        bytes += Array(",\"\(kind)\":[".utf8)
        return bytes
    }

    private func flushPending() {
        guard layout == nil else { return }
        let layout = TableLayout(columns: columns, rows: pending, totalWidth: context.terminal.width)
        self.layout = layout
        context.output.line(context.style(layout.header(columns), .bold))
        for row in pending { writeRowNow(row) }
        pending = []
    }

    /// Writes a row, or on several cores gathers it into a batch for the formatter.
    private func writeRow(_ cells: [Cell]) {
        guard let layout, Cores.usable > 1 else { return writeRowNow(cells) }
        batch.append(cells)
        for cell in cells { batchBytes += cell.text.utf8.count }
        guard batch.count >= BatchWriter<[Cell]>.batchSize || batchBytes >= BatchWriter<[Cell]>.batchBytes else {
            return
        }
        if formatter == nil {
            let columns = columns
            let style = context.color ? context.style : nil
            formatter = BatchWriter(output: context.output) { cells, bytes in
                layout.write(cells, columns: columns, style: style, to: &bytes)
            }
        }
        formatter?.submit(batch)
        batch = []
        batchBytes = 0
    }

    private func writeRowNow(_ cells: [Cell]) {
        guard let layout else { return }
        rowBytes.removeAll(keepingCapacity: true)
        layout.write(cells, columns: columns, style: context.color ? context.style : nil, to: &rowBytes)
        context.output.write(bytes: rowBytes)
    }
}
