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
        let progress = Progress(total: showProgress ? try session.store.transactionCount() : 0, enabled: showProgress)
        let warnings = ValueWarnings(store: session.store.path)
        do {
            if context.format == .csv {
                var csv = CSVExport(presenter: presenter)
                output.write(bytes: csv.header)
                try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
                    warnings.add(tx.warnings)
                    for change in changes { warnings.add(change.warnings) }
                    output.write(bytes: csv.rows(tx, changes))
                    progress.step()
                }
                output.flush()
            } else {
                let list = ListRenderer(context: context, kind: "transactions", columns: HistoryPresenter.transactionColumns,
                                        header: [("storeID", .string(session.store.storeUUID))])
                try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
                    warnings.add(tx.warnings)
                    for change in changes { warnings.add(change.warnings) }
                    list.add(cells: [], record: presenter.record(tx, changes: changes))
                    progress.step()
                }
                list.finish()
            }
            progress.finish()
            try target?.commit()
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

    func commit() throws {
        try handle.synchronize()
        try handle.close()
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

/// A one-line progress counter on stderr, shown only on a terminal.
final class Progress {
    private let total: Int
    private let enabled: Bool
    private var count = 0
    private var lastShown = Date.distantPast

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func step() {
        count += 1
        guard enabled, count % 256 == 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastShown) > 0.2 else { return }
        lastShown = now
        FileHandle.standardError.write(Data("\r\(count)/\(total) transactions".utf8))
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\r\(count)/\(total) transactions\n".utf8)) }
    }
}

/// `export --format csv`: one row per change with its transaction's fields
/// (a transaction without changes gets one row with empty change fields);
/// updated properties separated by spaces, the tombstone as compact JSON.
struct CSVExport {
    let presenter: HistoryPresenter
    private var buffer: [UInt8] = []
    private var transactionFields: [UInt8] = []
    private var tombstone = JSONBytes(capacity: 256)

    static let transactionColumns = ["transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID", "processID"]
    static let changeColumns = ["changeID", "changeType", "entity", "entityPK", "changedObjectID", "updatedProperties", "tombstone"]

    init(presenter: HistoryPresenter) { self.presenter = presenter }

    var header: [UInt8] { Array((CSV.row(Self.transactionColumns + Self.changeColumns) + "\n").utf8) }

    /// The rows of one transaction; the buffer is reused for the next.
    mutating func rows(_ tx: Transaction, _ changes: [Change]) -> [UInt8] {
        let comma = UInt8(ascii: ",")
        transactionFields.removeAll(keepingCapacity: true)
        JSONValue.writeInt(tx.number, to: &transactionFields)
        transactionFields.append(comma)
        if let iso = presenter.time.iso(tx.timestamp) { CSV.field(iso, to: &transactionFields) }
        transactionFields.append(comma)
        // Empty for NULL and for ±infinity (as in JSON, where they are null).
        if let ts = tx.timestamp, ts.isFinite { JSONValue.writeDouble(ts, to: &transactionFields) }
        for field in [tx.author, tx.contextName, tx.bundleID, tx.processID] {
            transactionFields.append(comma)
            if let field { CSV.field(field, to: &transactionFields) }
        }
        buffer.removeAll(keepingCapacity: true)
        if changes.isEmpty {
            buffer += transactionFields
            buffer += repeatElement(comma, count: Self.changeColumns.count)
            buffer.append(0x0A)
        }
        for c in changes {
            buffer += transactionFields
            buffer.append(comma)
            JSONValue.writeInt(c.changeID, to: &buffer)
            buffer.append(comma)
            buffer += c.changeType.description.utf8
            buffer.append(comma)
            if let entity = c.entityName { CSV.field(entity, to: &buffer) }
            buffer.append(comma)
            JSONValue.writeInt(c.entityPK, to: &buffer)
            buffer.append(comma)
            if let id = c.changedObjectID { CSV.field(id, to: &buffer) }
            buffer.append(comma)
            if let names = c.updatedProperties { CSV.field(names.joined(separator: " "), to: &buffer) }
            buffer.append(comma)
            if c.changeType == .delete {
                tombstone.reset()
                presenter.writeTombstone(c.tombstone, to: &tombstone)
                CSV.field(bytes: tombstone.bytes, to: &buffer)
            }
            buffer.append(0x0A)
        }
        return buffer
    }
}
