import Foundation
import HistoryKit

/// Writes what `watch` sees as it comes, flushed at once: in a table, a line
/// per transaction and its changes indented under it; in NDJSON, exactly the
/// lines `export` writes, and an object per event; in JSON and CSV (which have
/// no place for them), events go to stderr.
final class WatchPrinter {
    private let context: RenderContext
    private var presenter: HistoryPresenter
    private let list: ListRenderer?
    private var csv: CSVExport?
    private let warnings: ValueWarnings
    private var line = JSONBytes(capacity: 1 << 16)
    /// Indent of change lines under their transaction.
    private static let indent = 4

    init(context: RenderContext, presenter: HistoryPresenter, storeUUID: String, warnings: ValueWarnings) {
        self.context = context
        self.presenter = presenter
        self.warnings = warnings
        switch context.format {
        case .json, .ndjson:
            list = ListRenderer(
                context: context, kind: "transactions", columns: [], header: [("storeID", .string(storeUUID))])
        case .csv:
            list = nil
            let writer = CSVExport(presenter: presenter, raw: context.csvRaw)
            csv = writer
            context.output.write(bytes: writer.header)
            context.output.flush()
        case .table:
            list = nil
        }
    }

    /// Writes what a look at the store found, its changed objects labelled with `labeler` (made
    /// for the store as that look opened it, and let go of after the event).
    func show(_ event: StoreWatcher.Event, labeler: ObjectLabeler?) throws {
        let noter = ChangeNoter(labeler: labeler, values: nil, storeUUID: "")
        presenter.show(noter)
        defer { presenter.show(.none) }
        switch event {
        case .transaction(let tx, let changes): try transaction(tx, noter.noted(changes))
        case .purged(let first, let last, let count): purged(first: first, last: last, count: count)
        case .checkpoint(let walBytes): checkpoint(walBytes: walBytes)
        case .massDelete(let burst): massDelete(burst)
        }
    }

    private func transaction(_ tx: Transaction, _ changes: NotedChanges) throws {
        warnings.add(tx.warnings)
        let out = context.output
        switch context.format {
        case .table:
            out.line(transactionLine(tx))
            try changes.forEach { change, notes in
                warnings.add(change.warnings)
                for text in changeLines(change, notes) { out.line(text) }
            }
        case .json, .ndjson:
            // The records export writes, through the same list.
            let format = context.format == .ndjson ? jsonFormatTag : nil
            try list?.addStreaming { line in
                try presenter.writeTransaction(tx, changes: changes, format: format, to: &line, spill: out.spill) {
                    warnings.add($0.warnings)
                }
            }
        case .csv:
            try csv?.write(tx, changes, seen: { warnings.add($0.warnings) }, spill: out.spill)
            out.write(bytes: csv?.bytes ?? [])
            csv?.bytes.removeAll(keepingCapacity: true)
        }
        out.flush()
    }

    /// Transactions another process purged.
    private func purged(first: Int64, last: Int64, count: Int?) {
        let range = first == last ? "#\(first)" : "#\(first)–#\(last)"
        let what = count.map { " (\(plural($0, "transaction")))" } ?? ""
        event("purged", text: "\(range) purged by another process\(what)", style: .yellow) { s in
            s.member("firstTransaction", first)
            s.member("lastTransaction", last)
            s.member("transactions", count)
        }
    }

    /// New transactions deleted most of an entity's objects at once.
    private func massDelete(_ b: DeleteBurst) {
        event("mass-delete", text: "warning: mass-delete: \(b.sentence)", style: .yellow) { s in
            s.member("entity", b.entity)
            s.member("author", b.author)
            s.member("deleted", Int64(b.deleted))
            s.member("objectsBefore", Int64(b.objectsBefore))
            s.member("firstTransaction", b.firstTransaction)
            s.member("lastTransaction", b.lastTransaction)
        }
    }

    /// A checkpoint wrote the main file.
    private func checkpoint(walBytes: Int64?) {
        let wal = walBytes.map { ", -wal now \($0) bytes" } ?? ", no -wal now"
        event("checkpoint", text: "checkpoint: the WAL was written into the main file\(wal)", style: .dim) { s in
            s.member("walBytes", walBytes)
        }
    }

    /// Ends the output (a JSON document's closing bracket).
    func finish() {
        list?.finish()
        context.output.flush()
        warnings.report(to: context.console)
    }

    private func event(_ name: String, text: String, style: Style, members: (inout JSONBytes) -> Void) {
        let out = context.output
        switch context.format {
        case .table:
            for piece in wrap("— " + text, indent: 2) { out.line(context.style(piece, style)) }
        case .ndjson:
            line.reset()
            line.beginObject()
            line.member("format", jsonFormatTag)
            line.member("event", name)
            members(&line)
            line.endObject()
            line.bytes.append(0x0A)
            out.write(bytes: line.bytes)
        case .json, .csv:
            context.console.printError("cdhist: \(text)")
        }
        out.flush()
    }

    private func transactionLine(_ tx: Transaction) -> String {
        let who = [tx.author, tx.contextName, tx.bundleID, tx.processID].compactMap { $0 }.joined(separator: " · ")
        // The count and its noun stay on one line (a no-break space while wrapping).
        let changes = "\(tx.changeCount)\u{00A0}change\(tx.changeCount == 1 ? "" : "s")"
        let head = "#\(tx.number)  \(presenter.time.display(tx.timestamp))"
        let pieces = wrap(head + "  " + (who.isEmpty ? "-" : who) + "  " + changes, indent: Self.indent)
            .map { $0.replacingOccurrences(of: "\u{00A0}", with: " ") }
        guard let first = pieces.first, first.hasPrefix(head) else { return pieces.joined(separator: "\n") }
        return ([context.style(head, .bold) + first.dropFirst(head.count)] + pieces.dropFirst()).joined(separator: "\n")
    }

    private func changeLines(_ change: Change, _ notes: ChangeNotes) -> [String] {
        let type = presenter.typeCell(change)
        var object =
            change.entityName.map { "\($0)/p\(change.entityPK)" } ?? "Z_ENT \(change.entityNumber)/p\(change.entityPK)"
        if presenter.labels, let label = notes.label { object += " " + HistoryPresenter.quoted(label) }
        let details = presenter.detailsCell(change)
        let pad = String(repeating: " ", count: Self.indent)
        let typeText = type.text.padding(toLength: max(6, type.text.count), withPad: " ", startingAt: 0)
        let text = object + (details.text.isEmpty ? "" : "  " + details.text)
        let hanging = Self.indent + typeText.count + 2
        let pieces = wrap(text, indent: hanging, first: hanging)
        let lead = pad + context.style(typeText, type.style ?? .dim) + "  "
        return [lead + pieces[0].dropFirst(hanging)] + pieces.dropFirst()
    }

    /// `text` in lines that fit the terminal after an indent: the first after `first`
    /// columns (left for the caller to fill), the others after `indent` spaces.
    private func wrap(_ text: String, indent: Int, first: Int = 0) -> [String] {
        let text = TableLayout.clean(text)
        guard let width = context.terminal.width else { return [String(repeating: " ", count: first) + text] }
        let head = TextWrap.lines(text, width: max(20, width - first)).map { $0.trimmingTrailingSpaces() }
        let rest =
            head.count > 1
            ? TextWrap.lines(head.dropFirst().joined(separator: " "), width: max(20, width - indent)) : []
        return [String(repeating: " ", count: first) + head[0]]
            + rest.map { String(repeating: " ", count: indent) + $0 }
    }
}
