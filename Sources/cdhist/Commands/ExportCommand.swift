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
        let list = ListRenderer(context: context, kind: "transactions", columns: HistoryPresenter.transactionColumns,
                                header: [("storeID", .string(session.store.storeUUID))])
        do {
            if context.format == .csv {
                var csv = CSVExport(presenter: presenter)
                output.write(bytes: csv.header)
                try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
                    output.write(bytes: csv.rows(tx, changes))
                    progress.step()
                }
                output.flush()
            } else {
                try session.store.forEachTransactionWithChanges(query, decoder: session.decoder) { tx, changes in
                    list.add(cells: [], write: { presenter.write(tx, changes: changes, format: $1, to: &$0) },
                             json: presenter.json(tx, changes: changes))
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
    private var tombstone = JSONBytes(capacity: 256)

    static let columns = ["transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID", "processID",
                          "changeID", "changeType", "entity", "entityPK", "changedObjectID", "updatedProperties", "tombstone"]

    init(presenter: HistoryPresenter) { self.presenter = presenter }

    var header: [UInt8] { Array((Self.columns.joined(separator: ",") + "\n").utf8) }

    mutating func rows(_ tx: Transaction, _ changes: [Change]) -> [UInt8] {
        buffer.removeAll(keepingCapacity: true)
        var prefix: [UInt8] = []
        JSONValue.writeInt(tx.number, to: &prefix)
        prefix.append(UInt8(ascii: ","))
        if let iso = presenter.time.iso(tx.timestamp) { Self.field(iso, to: &prefix) }
        prefix.append(UInt8(ascii: ","))
        if let ts = tx.timestamp { JSONValue.writeDouble(ts, to: &prefix) }
        for field in [tx.author, tx.contextName, tx.bundleID, tx.processID] {
            prefix.append(UInt8(ascii: ","))
            if let field { Self.field(field, to: &prefix) }
        }
        if changes.isEmpty {
            buffer += prefix
            buffer += Array(repeating: UInt8(ascii: ","), count: 7)
            buffer.append(0x0A)
        }
        for c in changes {
            buffer += prefix
            buffer.append(UInt8(ascii: ","))
            JSONValue.writeInt(c.changeID, to: &buffer)
            buffer.append(UInt8(ascii: ","))
            buffer += c.changeType.description.utf8
            buffer.append(UInt8(ascii: ","))
            if let entity = c.entityName { Self.field(entity, to: &buffer) }
            buffer.append(UInt8(ascii: ","))
            JSONValue.writeInt(c.entityPK, to: &buffer)
            buffer.append(UInt8(ascii: ","))
            if let id = c.changedObjectID { Self.field(id, to: &buffer) }
            buffer.append(UInt8(ascii: ","))
            if let names = c.updatedProperties { Self.field(names.joined(separator: " "), to: &buffer) }
            buffer.append(UInt8(ascii: ","))
            if c.changeType == .delete {
                tombstone.reset()
                presenter.writeTombstone(c.tombstone, to: &tombstone)
                Self.field(String(decoding: tombstone.bytes, as: UTF8.self), to: &buffer)
            }
            buffer.append(0x0A)
        }
        return buffer
    }

    /// A field, quoted (with doubled quotes) only when it holds a comma, quote or line break.
    static func field(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
                out.append(contentsOf: utf8)
                return
            }
            out.append(UInt8(ascii: "\""))
            for b in utf8 {
                if b == UInt8(ascii: "\"") { out.append(b) }
                out.append(b)
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}
