import Foundation
import HistoryKit

/// Turns transactions and changes into JSON objects (names follow Core
/// Data's API) and table cells.
struct HistoryPresenter {
    let time: TimeFormatter
    /// Whether changes show a short label for their object (`--labels`), from their notes.
    var labels = false
    /// With `--values`, the store whose objects' URIs a change's values name (the values
    /// before and after it, from its notes); nil leaves values out.
    var valuesStore: String?

    init(time: TimeFormatter) {
        self.time = time
    }

    /// Shows what `noter` notes: labels when it labels, values when it reads them.
    mutating func show(_ noter: ChangeNoter) {
        labels = noter.labeler != nil
        valuesStore = noter.values == nil ? nil : noter.storeUUID
    }

    /// The columns of a transaction list; numbers are as wide as `bounds`' largest and times as a
    /// date is (rows stream: widths are set from the first, which may have no date).
    func transactionColumns(_ bounds: NumberBounds) -> [Column] {
        [
            Column("#", alignRight: true, minWidth: bounds.transactionWidth),
            Column("Time", minWidth: time.display(0).cells),
            Column("Author", fit: .wrap(min: 8), importance: .key),
            Column("Context", fit: .wrap(min: 8)), Column("Bundle", fit: .wrap(min: 8), importance: .detail),
            Column("Process", fit: .wrap(min: 8), importance: .detail),
            Column("Changes", alignRight: true),
        ]
    }

    /// The columns of a change list (see ``transactionColumns(_:)``).
    func changeColumns(_ bounds: NumberBounds) -> [Column] {
        [
            Column("Change", alignRight: true, minWidth: bounds.changeWidth),
            Column("Tx", alignRight: true, minWidth: bounds.transactionWidth),
            Column("Type"), Column("Entity", fit: .wrap(min: 8), importance: .key),
            Column("PK", alignRight: true, minWidth: bounds.objectWidth),
        ] + (labels ? [Column("Label", fit: .wrap(min: 10))] : []) + [
            Column("Details", fit: .wrap(min: 20))
        ] + (valuesStore == nil ? [] : [Column("Values", fit: .below)])
    }

    /// A transaction (with its changes, when given) as a JSON record.
    struct TransactionRecord: JSONRecord {
        let presenter: HistoryPresenter
        let transaction: Transaction
        let changes: [(Change, ChangeNotes)]?

        func write<S: JSONSink>(format: String?, to s: inout S) {
            presenter.write(transaction, changes: changes, format: format, to: &s)
        }
    }

    /// A change as a JSON record.
    struct ChangeRecord: JSONRecord {
        let presenter: HistoryPresenter
        let change: Change
        let notes: ChangeNotes

        func write<S: JSONSink>(format: String?, to s: inout S) {
            presenter.write(change, notes: notes, format: format, to: &s)
        }
    }

    /// A transaction, with its changes and their notes when given.
    func record(_ tx: Transaction, changes: [(Change, ChangeNotes)]? = nil) -> TransactionRecord {
        TransactionRecord(presenter: self, transaction: tx, changes: changes)
    }

    func record(_ change: Change, notes: ChangeNotes) -> ChangeRecord {
        ChangeRecord(presenter: self, change: change, notes: notes)
    }

    /// A change with its transaction's time and names first (a row of a change list in CSV, as
    /// export's rows begin); the transaction nil when it is not there (an orphan change).
    struct ChangeRowRecord: JSONRecord {
        let presenter: HistoryPresenter
        let change: Change
        let transaction: Transaction?
        let notes: ChangeNotes

        func write<S: JSONSink>(format: String?, to s: inout S) {
            s.beginObject()
            if let format { s.member("format", format) }
            s.member("transactionNumber", change.transactionNumber)
            presenter.writeTime(transaction?.timestamp, to: &s)
            presenter.writeNames(
                author: transaction?.author, contextName: transaction?.contextName, bundleID: transaction?.bundleID,
                processID: transaction?.processID, to: &s)
            s.member("changeID", change.changeID)
            presenter.writeMembers(change, notes: notes, to: &s)
            s.endObject()
        }
    }

    /// The members of a ``ChangeRowRecord`` without labels or values, then `warnings`: the header
    /// of a change list's CSV.
    static let changeRowCSVNames = [
        "transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID", "processID",
        "changeID", "changeType", "entity", "entityNumber", "entityPK", "changedObjectID", "updatedProperties",
        "updatedSlots", "tombstone", "warnings",
    ]

    /// The members of a transaction's record without its changes, `warnings` last: the header of
    /// a transaction list's CSV.
    static let transactionCSVNames = [
        "transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID", "processID",
        "storeID", "token", "changeCount", "queryGenerationLength", "warnings",
    ]

    func record(_ change: Change, of transaction: Transaction?, notes: ChangeNotes) -> ChangeRowRecord {
        ChangeRowRecord(presenter: self, change: change, transaction: transaction, notes: notes)
    }

    func json(_ tx: Transaction, changes: [(Change, ChangeNotes)]? = nil) -> JSONValue {
        record(tx, changes: changes).json
    }

    private func write<S: JSONSink>(
        _ tx: Transaction, changes: [(Change, ChangeNotes)]?, format: String?, to s: inout S
    ) {
        writeMembers(tx, format: format, to: &s)
        if let changes {
            s.key("changes")
            s.beginArray()
            for (change, notes) in changes { write(change, notes: notes, format: nil, to: &s) }
            s.endArray()
        }
        s.endObject()
    }

    /// A transaction's object with every change `changes` reads, with its notes; `each` sees every
    /// change decoded. With `plain` (compact `s` only, changes without notes), the plain changes
    /// are written by it, not decoded (they have no warning for `each` to see). `spill` is handed
    /// the bytes after each change: it may write them out and empty them (the nesting is kept), so
    /// a transaction of a million changes streams.
    func writeTransaction(
        _ tx: Transaction, changes: NotedChanges, format: String?, to s: inout JSONBytes,
        plain: PlainChangeWriter? = nil, spill: (inout [UInt8]) throws -> Void, each: (Change) -> Void
    ) throws {
        writeMembers(tx, format: format, to: &s)
        try writeChanges(changes, to: &s, plain: plain, spill: spill, each: each)
    }

    /// A plain transaction's object, as ``writeTransaction(_:changes:format:to:plain:spill:each:)``
    /// writes it decoded; `fields` formats its members. `eachPlain` sees each change written plain.
    func writeTransaction(
        _ tx: PlainTransaction, fields: inout PlainTransactionFields, changes: NotedChanges, format: String?,
        to s: inout JSONBytes, plain: PlainChangeWriter?, spill: (inout [UInt8]) throws -> Void, each: (Change) -> Void,
        eachPlain: (PlainChange) -> Void = { _ in }
    ) throws {
        fields.writeJSON(tx, format: format, to: &s)
        try writeChanges(changes, to: &s, plain: plain, spill: spill, each: each, eachPlain: eachPlain)
    }

    /// The `changes` member, and the end of the transaction's object.
    private func writeChanges(
        _ changes: NotedChanges, to s: inout JSONBytes, plain: PlainChangeWriter?,
        spill: (inout [UInt8]) throws -> Void, each: (Change) -> Void, eachPlain: (PlainChange) -> Void = { _ in }
    ) throws {
        s.key("changes")
        s.beginArray()
        func decoded(_ change: Change, _ notes: ChangeNotes) throws {
            each(change)
            write(change, notes: notes, format: nil, to: &s)
            try spill(&s.bytes)
        }
        // Labels are written only for decoded changes.
        if let plain, !labels {
            try changes.forEach(
                plain: { change in
                    eachPlain(change)
                    s.compactValue { plain.json(change, to: &$0) }
                    try spill(&s.bytes)
                }, decoded: decoded)
        } else {
            try changes.forEach(decoded)
        }
        s.endArray()
        s.endObject()
    }

    /// Opens a transaction's object and writes its members (not its changes).
    private func writeMembers<S: JSONSink>(_ tx: Transaction, format: String?, to s: inout S) {
        s.beginObject()
        if let format { s.member("format", format) }
        s.member("transactionNumber", tx.number)
        writeTime(tx, to: &s)
        writeNames(tx, to: &s)
        s.member("storeID", tx.storeUUID)
        // The transaction's token (as `write(tx.token)` writes it, without building one per transaction).
        s.key("token")
        s.beginObject()
        s.key(named: tx.storeUUID)
        s.int(tx.number)
        s.endObject()
        s.member("changeCount", tx.changeCount)
        s.member("queryGenerationLength", tx.queryGenerationLength)
        Self.write(tx.warnings, to: &s)
    }

    /// A transaction's time: ISO 8601 (null outside the years 1–9999) and Cocoa seconds.
    func writeTime<S: JSONSink>(_ tx: Transaction, to s: inout S) {
        writeTime(tx.timestamp, to: &s)
    }

    /// ``writeTime(_:to:)`` of a transaction whose timestamp is `timestamp`.
    func writeTime<S: JSONSink>(_ timestamp: Double?, to s: inout S) {
        s.key("timestamp")
        if time.iso(timestamp, { s.asciiString($0) }) == nil { s.null() }
        s.member("cocoaTimestamp", timestamp)
    }

    /// Where a transaction came from: author, context, bundle, process.
    func writeNames<S: JSONSink>(_ tx: Transaction, to s: inout S) {
        writeNames(
            author: tx.author, contextName: tx.contextName, bundleID: tx.bundleID, processID: tx.processID, to: &s)
    }

    /// ``writeNames(_:to:)`` of a transaction with these names.
    func writeNames<S: JSONSink>(
        author: String?, contextName: String?, bundleID: String?, processID: String?, to s: inout S
    ) {
        s.member("author", author)
        s.member("contextName", contextName)
        s.member("bundleID", bundleID)
        s.member("processID", processID)
    }

    /// Who made a transaction, in one name: its author, else its bundle, else its process.
    static func who(_ tx: Transaction) -> String? { tx.author ?? tx.bundleID ?? tx.processID }

    static func json(_ token: HistoryToken) -> JSONValue {
        JSONTree.build { write(token, to: &$0) }
    }

    static func write<S: JSONSink>(_ token: HistoryToken, to s: inout S) {
        s.beginObject()
        for (store, number) in token.transactionNumbers.sorted(by: { $0.key < $1.key }) {
            s.key(named: store)
            s.int(number)
        }
        s.endObject()
    }

    func cells(_ tx: Transaction) -> [Cell] {
        [
            Cell(String(tx.number)), Cell(time.display(tx.timestamp)), Self.optional(tx.author),
            Self.optional(tx.contextName),
            Self.optional(tx.bundleID), Self.optional(tx.processID), Cell(String(tx.changeCount)),
        ]
    }

    private func write<S: JSONSink>(_ change: Change, notes: ChangeNotes, format: String?, to s: inout S) {
        s.beginObject()
        if let format { s.member("format", format) }
        s.member("changeID", change.changeID)
        s.member("transactionNumber", change.transactionNumber)
        writeMembers(change, notes: notes, to: &s)
        s.endObject()
    }

    /// A change's members after its ID and transaction number: type, entity, object, label,
    /// updated properties, tombstone, values and warnings.
    func writeMembers<S: JSONSink>(_ change: Change, notes: ChangeNotes, to s: inout S) {
        s.member("changeType", change.changeType.description)
        s.member("entity", change.entityName)
        s.member("entityNumber", change.entityNumber)
        s.member("entityPK", change.entityPK)
        s.member("changedObjectID", change.changedObjectID)
        if labels { s.member("label", notes.label) }
        s.key("updatedProperties")
        if let names = change.updatedProperties {
            s.beginArray()
            for name in names { s.string(name) }
            s.endArray()
        } else {
            s.null()
        }
        s.key("updatedSlots")
        if let slots = change.updatedSlots {
            s.beginArray()
            for slot in slots { s.int(Int64(slot)) }
            s.endArray()
        } else {
            s.null()
        }
        s.key("tombstone")
        if change.changeType == .delete {
            writeTombstone(change.tombstone, to: &s)
        } else {
            s.null()
        }
        if let valuesStore { writeValues(notes, storeUUID: valuesStore, to: &s) }
        Self.write(change.warnings, to: &s)
    }

    /// A `"warnings"` member, only when there are any.
    private static func write<S: JSONSink>(_ warnings: [DecodingWarning], to s: inout S) {
        guard !warnings.isEmpty else { return }
        s.key("warnings")
        s.beginArray()
        for w in warnings {
            s.beginObject()
            s.member("kind", w.kind.rawValue)
            s.member("message", w.message.text)
            s.member("rawHex", w.rawHex)
            s.endObject()
        }
        s.endArray()
    }

    func cells(_ change: Change, color: Bool, notes: ChangeNotes) -> [Cell] {
        [
            Cell(String(change.changeID)), Cell(String(change.transactionNumber)), typeCell(change),
            change.entityName.map { Cell($0) } ?? Cell("Z_ENT \(change.entityNumber)", .red),
            Cell(String(change.entityPK)),
        ] + labelCells(notes) + [detailsCell(change)] + valueCells(notes)
    }

    /// With `--values`, the values before and after the change (or that the files do not hold them).
    func valueCells(_ notes: ChangeNotes) -> [Cell] {
        guard valuesStore != nil else { return [] }
        guard let found = notes.values else { return [Cell("values: " + (notes.valuesMissing ?? ""), .dim)] }
        let lines = valueLines(found)
        return [
            Cell(
                Self.valueSource(found) + ": " + (lines.isEmpty ? "no property read" : lines.joined(separator: "; ")),
                found.exact ? nil : .yellow)
        ]
    }

    /// The change type, coloured.
    func typeCell(_ change: Change) -> Cell {
        switch change.changeType {
        case .insert: return Cell(change.changeType.description, .green)
        case .update: return Cell(change.changeType.description, .yellow)
        case .delete, .unknown: return Cell(change.changeType.description, .red)
        }
    }

    /// An update's properties, a delete's tombstone, and what could not be decoded.
    func detailsCell(_ change: Change) -> Cell {
        var details: String
        switch change.changeType {
        case .update:
            details = Self.updatedNames(change).joined(separator: ", ")
        case .delete:
            details = change.tombstone.isEmpty ? "(no tombstone values)" : tombstoneText(change.tombstone)
        default:
            details = ""
        }
        if !change.warnings.isEmpty {
            details += (details.isEmpty ? "" : "  ") + "⚠ " + change.warnings.map(\.text).joined(separator: "; ")
        }
        return Cell(details, change.warnings.isEmpty ? nil : .red)
    }

    /// The label column's cell, when labels are shown.
    func labelCells(_ notes: ChangeNotes) -> [Cell] {
        guard labels else { return [] }
        return [notes.label.map { Cell(Self.quoted($0)) } ?? Cell("-", .dim)]
    }

    /// A label or string as shown in text: in quotes.
    static func quoted(_ text: String) -> String { "'\(text)'" }

    /// A tombstone as a JSON object of its preserved values.
    func writeTombstone<S: JSONSink>(_ entries: [TombstoneEntry], to s: inout S) {
        s.beginObject()
        for entry in entries {
            s.key(named: entry.name)
            writeTombstone(entry, to: &s)
        }
        s.endObject()
    }

    private func writeTombstone<S: JSONSink>(_ entry: TombstoneEntry, to s: inout S) {
        write(entry.value, type: entry.attributeType, to: &s)
    }

    /// A stored value typed for JSON: booleans as true/false, dates as ISO 8601 (Cocoa seconds outside the
    /// years 1–9999), UUID blobs as UUID strings, other blobs as hex (with `blobLimit`, longer blobs as
    /// `{"bytes": N, "hex": the first blobLimit bytes}`).
    func write<S: JSONSink>(_ value: StoredValue, type: AttributeType?, blobLimit: Int? = nil, to s: inout S) {
        switch value {
        // SQLite keeps a whole number of seconds in a date column as an INTEGER.
        case .integer(let i) where type == .date: if let iso = time.iso(Double(i)) { s.string(iso) } else { s.int(i) }
        case .integer(let i): if type == .boolean { s.bool(i != 0) } else { s.int(i) }
        case .real(let d):
            // A date outside the years 1–9999 keeps its Cocoa seconds (a number) rather than becoming null.
            if type == .date, let iso = time.iso(d) { s.string(iso) } else { s.double(d) }
        case .text(let t): s.string(t)
        case .blob(let b):
            if let blobLimit, b.count > blobLimit, !(type == .uuid && b.count == 16) {
                s.beginObject()
                s.member("bytes", b.count)
                s.member("hex", Array(b.prefix(blobLimit)).hexString)
                s.endObject()
            } else {
                s.string(Self.blobText(b, type: type))
            }
        }
    }

    /// What an update set: its properties' names, else its slots' numbers.
    static func updatedNames(_ change: Change) -> [String] {
        change.updatedProperties ?? (change.updatedSlots ?? []).map { "slot \($0)" }
    }

    /// A tombstone's values as `name=value, …` (``text(_:type:textLimit:blobLimit:)`` each).
    func tombstoneText(_ entries: [TombstoneEntry], textLimit: Int? = nil, blobLimit: Int? = nil) -> String {
        entries.map {
            "\($0.name)=\(text($0.value, type: $0.attributeType, textLimit: textLimit, blobLimit: blobLimit))"
        }.joined(separator: ", ")
    }

    /// A stored value as text shows it: strings in double quotes (cut past `textLimit` characters),
    /// booleans as true/false, dates in the chosen time zone; blobs past `blobLimit` bytes summarized.
    func text(_ value: StoredValue, type: AttributeType?, textLimit: Int? = nil, blobLimit: Int? = nil) -> String {
        switch value {
        case .integer(let i) where type == .date: return time.display(Double(i))
        case .integer(let i): return type == .boolean && (i == 0 || i == 1) ? String(i != 0) : String(i)
        case .real(let d): return type == .date ? time.display(d) : "\(d)"
        case .text(let s):
            guard let textLimit, s.count > textLimit else { return "\"\(s)\"" }
            return "\"\(s.prefix(textLimit))…\" (\(s.count) characters)"
        case .blob(let b):
            guard let blobLimit, b.count > blobLimit, !(type == .uuid && b.count == 16) else {
                return Self.blobText(b, type: type)
            }
            return "\(b.count) bytes (0x\(Array(b.prefix(blobLimit)).hexString)…)"
        }
    }

    static func blobText(_ bytes: [UInt8], type: AttributeType?) -> String {
        if type == .uuid, bytes.count == 16 {
            let u = bytes
            return UUID(
                uuid: (
                    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]
                )
            ).uuidString
        }
        return "0x" + bytes.hexString
    }

    static func optional(_ s: String?) -> Cell {
        s.map { Cell($0) } ?? Cell("-", .dim)
    }
}
