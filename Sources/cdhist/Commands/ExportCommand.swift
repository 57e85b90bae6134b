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

    @Option(help: ArgumentHelp("Write to this file (atomically: it appears only when complete) instead of stdout.", valueName: "file"))
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
        let presenter = session.presenter
        let showProgress = session.context.terminal.stderrIsTerminal
        let total = showProgress ? try session.store.transactionCount() : 0
        let progress = ProgressLine(enabled: showProgress, every: 256)
        let warnings = ValueWarnings(store: session.store.path)
        do {
            // Changes are written as they are read, so a transaction of a million changes streams too.
            if context.format == .csv {
                var csv = CSVExport(presenter: presenter, output: output)
                output.write(bytes: csv.header)
                try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
                    warnings.add(tx.warnings)
                    try csv.write(tx, changes) { warnings.add($0.warnings) }
                    progress.step { "\(progress.steps)/\(total) transactions" }
                }
                output.flush()
            } else {
                let list = ListRenderer(context: context, kind: "transactions", columns: presenter.transactionColumns(try session.store.numberBounds()),
                                        header: [("storeID", .string(session.store.storeUUID))])
                let tag = context.format == .ndjson ? jsonFormatTag : nil
                try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
                    warnings.add(tx.warnings)
                    try list.addStreaming { line in
                        try presenter.writeTransaction(tx, changes: changes, format: tag, to: &line, spillingTo: output) { warnings.add($0.warnings) }
                    }
                    progress.step { "\(progress.steps)/\(total) transactions" }
                }
                list.finish()
            }
            progress.finish(leaving: "\(progress.steps)/\(total) transactions")
            try target?.commit(output)
        } catch {
            target?.discard()
            throw error
        }
        warnings.report()
    }
}

/// A file written under a temporary name beside its target and renamed into
/// place when complete, so readers never see half an export.
final class AtomicFile {
    let path: String
    let handle: FileHandle
    private let temporary: String
    private var finished = false

    init(_ path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).cdhist-\(getpid()).tmp").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CLIError.cannotWrite(path: path, reason: "cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        self.handle = handle
    }

    /// Renames the file into place once `output` (writing to it) is flushed; a failed write
    /// (or flush to the disk) is reported naming the file, and the temporary removed.
    func commit(_ output: Output) throws {
        output.flush()
        do {
            if let failure = output.failure { throw failure }
            try handle.synchronize()
            try handle.close()
        } catch {
            discard()
            throw CLIError.cannotWrite(path: path, reason: WriteFault.cause(error))
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw CLIError.cannotWrite(path: path, reason: reason)
        }
        finished = true
    }

    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporary)
        finished = true
    }

    deinit { if !finished { discard() } }
}

/// `export --format csv`: one row per change with its transaction's fields
/// (a transaction without changes gets one row with empty change fields);
/// updated properties separated by spaces, the tombstone as compact JSON.
/// Rows go to the output one by one.
struct CSVExport {
    let presenter: HistoryPresenter
    let output: Output
    private var row: [UInt8] = []
    private var transactionFields: [UInt8] = []
    private var tombstone = JSONBytes(capacity: 256)

    static let transactionColumns = ["transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID", "processID"]
    static let changeColumns = ["changeID", "changeType", "entity", "entityPK", "changedObjectID", "updatedProperties", "tombstone"]

    init(presenter: HistoryPresenter, output: Output) {
        self.presenter = presenter
        self.output = output
    }

    var header: [UInt8] { Array((CSV.row(Self.transactionColumns + Self.changeColumns) + "\n").utf8) }

    /// Writes the rows of one transaction; `seen` is told of each change.
    mutating func write(_ tx: Transaction, _ changes: ChangeStream, seen: (Change) -> Void) throws {
        let comma = UInt8(ascii: ",")
        transactionFields.removeAll(keepingCapacity: true)
        JSONValue.writeInt(tx.number, to: &transactionFields)
        transactionFields.append(comma)
        if let iso = presenter.time.iso(tx.timestamp) { CSV.field(iso, to: &transactionFields) }
        transactionFields.append(comma)
        // Empty for NULL and for ±infinity (as in JSON, where they are null).
        if let ts = tx.timestamp, ts.isFinite { JSONValue.writeDouble(ts, to: &transactionFields) }
        func add(_ field: String?) {
            transactionFields.append(comma)
            if let field { CSV.field(field, to: &transactionFields) }
        }
        add(tx.author)
        add(tx.contextName)
        add(tx.bundleID)
        add(tx.processID)
        var written = false
        try changes.forEach { c in
            seen(c)
            written = true
            row.removeAll(keepingCapacity: true)
            row += transactionFields
            row.append(comma)
            JSONValue.writeInt(c.changeID, to: &row)
            row.append(comma)
            row += c.changeType.description.utf8
            row.append(comma)
            if let entity = c.entityName { CSV.field(entity, to: &row) }
            row.append(comma)
            JSONValue.writeInt(c.entityPK, to: &row)
            row.append(comma)
            if let id = c.changedObjectID { CSV.field(id, to: &row) }
            row.append(comma)
            if let names = c.updatedProperties { CSV.field(joining: names, separator: UInt8(ascii: " "), to: &row) }
            row.append(comma)
            if c.changeType == .delete {
                tombstone.reset()
                presenter.writeTombstone(c.tombstone, to: &tombstone)
                CSV.field(bytes: tombstone.bytes, to: &row)
            }
            row.append(0x0A)
            output.write(bytes: row)
        }
        if !written {
            row.removeAll(keepingCapacity: true)
            row += transactionFields
            row += repeatElement(comma, count: Self.changeColumns.count)
            row.append(0x0A)
            output.write(bytes: row)
        }
    }
}
