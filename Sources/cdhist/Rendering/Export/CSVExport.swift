import HistoryKit

/// `export --format csv`: one row per change with its transaction's fields
/// (a transaction without changes gets one row with empty change fields);
/// updated properties separated by spaces, the tombstone as compact JSON.
/// Rows gather in ``bytes`` for the caller to write.
struct CSVExport {
    let presenter: HistoryPresenter
    /// Writes the plain changes; nil decodes every change.
    let plain: PlainChangeWriter?
    /// Text cells exactly as they are, formulas included (``CSV``).
    let raw: Bool
    /// The rows written and not yet taken.
    var bytes: [UInt8] = []
    private var transactionFields: [UInt8] = []
    /// A cell of JSON (a tombstone, values) as it is written.
    private var cellJSON = JSONBytes(capacity: 256)

    static let transactionColumns = [
        "transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID", "processID",
    ]
    static let changeColumns = [
        "changeID", "changeType", "entity", "entityPK", "changedObjectID", "updatedProperties", "tombstone",
    ]
    /// The change's columns, with `label` after the object's ID when objects are labelled, and
    /// `valuesBefore`, `valuesAfter` (JSON objects), `valuesSave`, `valuesExact` and `valuesNote`
    /// last with `--values`.
    let changeColumns: [String]
    var header: [UInt8] { Array((CSV.row(Self.transactionColumns + changeColumns, raw: true) + "\n").utf8) }

    init(presenter: HistoryPresenter, plain: PlainChangeWriter? = nil, raw: Bool) {
        self.presenter = presenter
        changeColumns =
            (!presenter.labels
                ? Self.changeColumns : Self.changeColumns.prefix(5) + ["label"] + Self.changeColumns.suffix(2))
            + (presenter.valuesStore == nil
                ? [] : ["valuesBefore", "valuesAfter", "valuesSave", "valuesExact", "valuesNote"])
        self.plain = plain
        self.raw = raw
        bytes.reserveCapacity(OrderedOutput.writeThreshold * 2)
    }

    /// Adds the rows of one plain transaction, as ``write(_:_:seen:spill:)`` does for it decoded.
    mutating func write(
        _ tx: PlainTransaction, fields: inout PlainTransactionFields, _ changes: NotedChanges,
        seen: (Change) -> Void, spill: (inout [UInt8]) throws -> Void
    ) throws {
        transactionFields.removeAll(keepingCapacity: true)
        fields.writeCSV(tx, to: &transactionFields)
        try writeRows(changes, seen: seen, spill: spill)
    }

    /// Adds the rows of one transaction; `seen` is told of each change, and `spill` is
    /// handed ``bytes`` after each row (it may write them out and empty them).
    mutating func write(
        _ tx: Transaction, _ changes: NotedChanges, seen: (Change) -> Void,
        spill: (inout [UInt8]) throws -> Void
    ) throws {
        transactionFields.removeAll(keepingCapacity: true)
        Self.writeNumberAndTime(tx.number, tx.timestamp, time: presenter.time, to: &transactionFields)
        Self.writeNames([tx.author, tx.contextName, tx.bundleID, tx.processID], raw: raw, to: &transactionFields)
        try writeRows(changes, seen: seen, spill: spill)
    }

    /// A transaction's first cells: its number, ISO time and Cocoa seconds.
    static func writeNumberAndTime(_ number: Int64, _ timestamp: Double?, time: TimeFormatter, to out: inout [UInt8]) {
        let comma = UInt8(ascii: ",")
        JSONValue.writeInt(number, to: &out)
        out.append(comma)
        // ISO 8601 needs no quoting.
        time.iso(timestamp) { out.append(contentsOf: $0) }
        out.append(comma)
        // Empty for NULL and for ±infinity (as in JSON, where they are null).
        if let timestamp, timestamp.isFinite { JSONValue.writeDouble(timestamp, to: &out) }
    }

    /// A transaction's names (author, context, bundle, process), each cell after a comma.
    static func writeNames(_ names: [String?], raw: Bool, to out: inout [UInt8]) {
        for name in names {
            out.append(UInt8(ascii: ","))
            if let name { CSV.field(name, to: &out, raw: raw) }
        }
    }

    /// A row per change of `changes` after ``transactionFields`` (one without change fields when none).
    private mutating func writeRows(
        _ changes: NotedChanges, seen: (Change) -> Void, spill: (inout [UInt8]) throws -> Void
    ) throws {
        let comma = UInt8(ascii: ",")
        var written = false
        func decoded(_ c: Change, _ notes: ChangeNotes) throws {
            seen(c)
            written = true
            appendTransactionFields()
            bytes.append(comma)
            writeFields(c, notes: notes)
            bytes.append(0x0A)
            try spill(&bytes)
        }
        if let plain {
            try changes.forEach(
                plain: { c in
                    guard plain.writesCSV(c) else { return try decoded(c.change, .none) }
                    appendTransactionFields()
                    bytes.append(comma)
                    plain.csv(c, to: &bytes)
                    written = true
                    bytes.append(0x0A)
                    try spill(&bytes)
                }, decoded: decoded)
        } else {
            try changes.forEach(decoded)
        }
        if !written {
            appendTransactionFields()
            bytes += repeatElement(comma, count: changeColumns.count)
            bytes.append(0x0A)
            try spill(&bytes)
        }
    }

    /// ``transactionFields`` at the end of ``bytes`` (through their storage: appending the array
    /// itself would retain it, once per row).
    private mutating func appendTransactionFields() {
        transactionFields.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    }

    /// A decoded change's fields, after its transaction's.
    private mutating func writeFields(_ c: Change, notes: ChangeNotes) {
        let comma = UInt8(ascii: ",")
        JSONValue.writeInt(c.changeID, to: &bytes)
        bytes.append(comma)
        bytes += c.changeType.description.utf8
        bytes.append(comma)
        if let entity = c.entityName { CSV.field(entity, to: &bytes, raw: raw) }
        bytes.append(comma)
        JSONValue.writeInt(c.entityPK, to: &bytes)
        bytes.append(comma)
        if let id = c.changedObjectID { CSV.field(id, to: &bytes, raw: raw) }
        bytes.append(comma)
        if presenter.labels {
            if let text = notes.label { CSV.field(text, to: &bytes, raw: raw) }
            bytes.append(comma)
        }
        if let names = c.updatedProperties {
            CSV.field(joining: names, separator: UInt8(ascii: " "), to: &bytes, raw: raw)
        }
        bytes.append(comma)
        if c.changeType == .delete {
            cellJSON.reset()
            presenter.writeTombstone(c.tombstone, to: &cellJSON)
            CSV.field(bytes: cellJSON.bytes, to: &bytes, raw: raw)
        }
        if let valuesStore = presenter.valuesStore {
            // Empty cells where the files do not hold the values (or the object had no row).
            let found = notes.values
            for side in [found?.before, found?.after] {
                bytes.append(comma)
                guard let side else { continue }
                cellJSON.reset()
                presenter.writeProperties(side, storeUUID: valuesStore, to: &cellJSON)
                CSV.field(bytes: cellJSON.bytes, to: &bytes, raw: raw)
            }
            bytes.append(comma)
            if let found { JSONValue.writeInt(Int64(found.save), to: &bytes) }
            bytes.append(comma)
            if let found { bytes += Array((found.exact ? "true" : "false").utf8) }
            bytes.append(comma)
            if let note = notes.valuesNote { CSV.field(note, to: &bytes, raw: raw) }
        }
    }
}
