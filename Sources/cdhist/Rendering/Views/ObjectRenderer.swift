import Foundation
import HistoryKit

/// `object`'s output as it streams: the header, each change as the walk of the object's
/// history reaches it, then what they add up to and the current values; or one JSON document.
struct ObjectRenderer {
    let presenter: ObjectPresenter
    /// The store the object is in (its labels are looked up there).
    let store: HistoryStore
    /// Each change's label and values, shown by the presenter.
    let noter: ChangeNoter
    let context: RenderContext
    let warnings: ValueWarnings
    /// Compact JSON's transactions are formatted on every core through these: changes that need
    /// no decoding written plain, from a read in chunks (nil: in one go, decoded).
    let chunks: (plain: PlainChangeWriter, read: ChunkedWrite.Read<ChunkedWrite.Walk>)?

    /// Walks the object's transactions with their changes (a read of the store; called once or twice).
    typealias Walk = ((Transaction, ChangeStream) throws -> Void) throws -> Void

    /// Writes `object`'s page in the context's format.
    func render(_ object: ObjectReference, lookup: ObjectLookup, bounds: NumberBounds, walk: Walk) throws {
        switch context.format {
        case .table: try text(object, lookup, bounds, walk)
        case .csv: try csv(object, lookup, walk)
        case .json, .ndjson: try json(object, lookup, walk)
        }
    }

    /// CSV in the export's dialect (``CSVDocument``): the object's fields and current values as
    /// `field,value` rows, then its changes, each with its transaction's time and names.
    private func csv(_ object: ObjectReference, _ lookup: ObjectLookup, _ walk: Walk) throws {
        let store = store
        var state: ObjectState?
        if case .found(let found) = lookup { state = found }
        let reference = state?.object ?? object
        var json: [(String, JSONValue)] = [
            ("storeID", .string(store.storeUUID)), ("object", .string(reference.uri(storeUUID: store.storeUUID))),
            ("entity", .optional(reference.entityName)), ("entityPK", .int(reference.primaryKey)),
        ]
        if noter.labeler != nil { json.append(("label", .optional(try label(lookup, walk)))) }
        var missing: String?
        if case .missing(let reason) = lookup { missing = reason }
        json += [
            ("inStore", .bool(state != nil)), ("table", .optional(state?.table)),
            ("version", .optional(state?.version)),
            ("values", state.map { found in JSONTree.build { presenter.writeValues(found, to: &$0) } } ?? .null),
            ("missing", .optional(missing)), ("problems", .array((state?.problems ?? []).map { .string($0) })),
        ]
        var changes: [JSONValue] = []
        try walk { tx, stream in
            warnings.add(tx.warnings)
            try noter.noted(stream).forEach { change, notes in
                warnings.add(change.warnings)
                changes.append(presenter.history.record(change, of: tx, notes: notes).json)
            }
        }
        json.append(("changes", .array(changes)))
        for row in CSVDocument.rows(json) { context.output.line(CSV.row(row, raw: context.csvRaw)) }
        context.output.flush()
    }

    /// The page on a terminal: the header, the changes as a table, the summary and the values.
    private func text(_ object: ObjectReference, _ lookup: ObjectLookup, _ bounds: NumberBounds, _ walk: Walk) throws {
        let label = try self.label(lookup, walk)
        DocumentRenderer.render(
            Document(
                kind: "object", json: [],
                sections: [.fields(title: nil, presenter.headerFields(object, lookup: lookup, label: label))]),
            context: context)
        context.output.line()
        context.output.line(context.style("Changes", .bold))
        let list = ListRenderer(context: context, kind: "changes", columns: presenter.changeColumns(bounds))
        var life = ObjectHistory()
        try walk { tx, changes in
            warnings.add(tx.warnings)
            try noter.noted(changes).forEach { change, notes in
                warnings.add(change.warnings)
                life.add(change, of: tx)
                list.add(cells: presenter.cells(tx, change, notes: notes))
            }
        }
        list.finish()
        context.output.line()
        var sections: [Document.Section] = [.note(presenter.summary(life, lookup: lookup))]
        if case .found(let state) = lookup {
            sections.append(
                .table(
                    title: "Current values", columns: ObjectPresenter.valueColumns,
                    rows: presenter.valueRows(
                        state, labels: noter.labeler?.labels(ofObjectsIn: state, in: store) ?? [:]))
            )
            sections += state.problems.map { .note("note: \($0)") }
        }
        DocumentRenderer.render(Document(kind: "object", json: [], sections: sections), context: context)
    }

    /// The object's label: its row's, or for an object no longer in the store its last delete's tombstone's.
    private func label(_ lookup: ObjectLookup, _ walk: Walk) throws -> String? {
        guard let labeler = noter.labeler else { return nil }
        if case .found(let state) = lookup { return labeler.label(of: state.object, in: store) }
        var label: String?
        try walk { _, changes in
            try changes.forEach { change in
                if change.changeType == .delete, let text = try labeler.label(change) { label = text }
            }
        }
        return label
    }

    private func json(_ object: ObjectReference, _ lookup: ObjectLookup, _ walk: Walk) throws {
        let output = context.output
        let store = store
        let pretty = context.format == .json && context.terminal.stdoutIsTerminal
        var s = JSONBytes(capacity: 1 << 16, prettyIndent: pretty ? 0 : nil)
        s.beginObject()
        s.member("format", jsonFormatTag)
        s.member("kind", "object")
        for (name, value) in context.documentMembers {
            s.key(named: name)
            value.write(to: &s)
        }
        s.member("storeID", store.storeUUID)
        var state: ObjectState?
        if case .found(let found) = lookup { state = found }
        let reference = state?.object ?? object
        s.member("object", reference.uri(storeUUID: store.storeUUID))
        s.member("entity", reference.entityName)
        s.member("entityPK", reference.primaryKey)
        if noter.labeler != nil { s.member("label", try label(lookup, walk)) }
        s.member("inStore", state != nil)
        s.member("table", state?.table)
        s.member("version", state?.version)
        s.key("values")
        if let state { presenter.writeValues(state, to: &s) } else { s.null() }
        if case .missing(let reason) = lookup {
            s.member("missing", reason)
        } else {
            s.member("missing", nil as String?)
        }
        s.key("problems")
        s.beginArray()
        for problem in state?.problems ?? [] { s.string(problem) }
        s.endArray()
        s.key("transactions")
        s.beginArray()
        var life = ObjectHistory()
        if let chunks, !pretty {
            output.write(bytes: s.bytes)
            s.bytes.removeAll(keepingCapacity: true)
            life = try transactions(chunks)
        } else {
            try walk { tx, changes in
                warnings.add(tx.warnings)
                try presenter.history.writeTransaction(
                    tx, changes: noter.noted(changes), format: nil, to: &s, spill: output.spill
                ) {
                    change in
                    warnings.add(change.warnings)
                    life.add(change, of: tx)
                }
            }
        }
        s.endArray()
        s.key("summary")
        s.beginObject()
        s.member("changes", life.changeCount)
        s.member("transactions", life.transactionCount)
        for (key, moment) in [
            ("first", life.first), ("last", life.last), ("inserted", life.inserted), ("deleted", life.deleted),
        ] {
            s.key(named: key)
            presenter.write(moment, to: &s)
        }
        s.endObject()
        s.endObject()
        s.bytes.append(0x0A)
        output.write(bytes: s.bytes)
        output.flush()
    }

    /// The elements of the compact `transactions` array, formatted in chunks on every core and
    /// written in order (or in one go when the read is not split); what they add up to.
    private func transactions(_ chunks: (plain: PlainChangeWriter, read: ChunkedWrite.Read<ChunkedWrite.Walk>))
        throws -> ObjectHistory
    {
        let comma = [UInt8(ascii: ",")]
        let ordered = OrderedOutput(output: context.output, separator: comma)
        let history = presenter.history
        let storeUUID = store.storeUUID
        var total = ObjectHistory()
        let store = warnings.store
        try ChunkedWrite.run(ordered, chunks.read) { chunk in
            let forEach = chunk.walk
            var records = ChunkRecords(spill: chunk.spill, separator: comma, terminator: [], store: store)
            let local = records.warnings
            let spill = records.spill
            var life = ObjectHistory()
            var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: history, csvRaw: false)
            try forEach(
                { tx, changes in
                    let moment = ObjectHistory.Moment(
                        transactionNumber: tx.number, timestamp: tx.timestamp, author: tx.author)
                    try records.add { line in
                        try history.writeTransaction(
                            tx, fields: &fields, changes: noter.noted(changes), format: nil, to: &line,
                            plain: chunks.plain,
                            spill: spill,
                            each: { change in
                                local.add(change.warnings)
                                life.add(change.changeType, tombstone: change.tombstone, at: moment)
                            }, eachPlain: { life.add($0.changeType, at: moment) })
                    }
                },
                { tx, changes in
                    local.add(tx.warnings)
                    try records.add { line in
                        try history.writeTransaction(
                            tx, changes: noter.noted(changes), format: nil, to: &line, plain: chunks.plain, spill: spill
                        ) { change in
                            local.add(change.warnings)
                            life.add(change, of: tx)
                        }
                    }
                })
            return (records.line.bytes, (local, life))
        } finished: { chunk, _ in
            warnings.add(chunk.0)
            total.append(chunk.1)
        }
        return total
    }
}
