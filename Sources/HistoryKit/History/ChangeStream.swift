/// The changes of one transaction, decoded as they are read. Valid only
/// inside the call that hands it out, and read once.
public struct ChangeStream {
    fileprivate let cursor: RawCursor
    /// Only these change IDs (an object filter's matches), when set.
    fileprivate let keep: Set<Int64>?
    fileprivate let rows: ChangeRows
    /// The changes of many transactions this stream reads its transaction's from; nil when
    /// `cursor` reads this transaction's changes alone.
    fileprivate let merge: (changes: TransactionOrderedRows, transaction: Int64)?

    init(cursor: RawCursor, keep: Set<Int64>?, rows: ChangeRows) {
        self.cursor = cursor
        self.keep = keep
        self.rows = rows
        merge = nil
    }

    /// Transaction `number`'s changes from `changes`.
    init(_ changes: TransactionOrderedRows, transaction number: Int64, rows: ChangeRows) {
        cursor = changes.cursor
        keep = nil
        self.rows = rows
        merge = (changes, number)
    }

    /// Calls `body` with each change, by change ID.
    public func forEach(_ body: (Change) throws -> Void) throws {
        while try advance() { try body(rows.change(cursor)) }
    }

    /// Calls `plain` with each change that decodes without a warning, read in place,
    /// and `decoded` with each other one, by change ID: what ``forEach(_:)`` hands out,
    /// without building the plain ones.
    public func forEach(plain: (PlainChange) throws -> Void, decoded: (Change) throws -> Void) throws {
        while try advance() {
            if let change = rows.plainChange(cursor) {
                try plain(change)
            } else {
                try decoded(rows.change(cursor))
            }
        }
    }

    /// The next change; nil after the last.
    func next() throws -> Change? {
        try advance() ? rows.change(cursor) : nil
    }

    /// Moves the cursor to the next change: false after the last.
    private func advance() throws -> Bool {
        while try (merge.map { try $0.changes.next(of: $0.transaction) } ?? cursor.next()) {
            if let keep, !keep.contains(cursor.int64(0)) { continue }
            return true
        }
        return false
    }

    /// Ends the read (a merged stream leaves the cursor to the next transaction).
    func finish() { if merge == nil { cursor.finish() } }
}

/// Decodes the rows of a change select (``HistorySQL/changeFixedColumnCount`` columns,
/// then the tombstones) for the streams of one read.
final class ChangeRows {
    private let store: HistoryStore
    private let decoder: ChangeDecoder

    init(store: HistoryStore, decoder: ChangeDecoder) {
        self.store = store
        self.decoder = decoder
    }

    func change(_ row: RawCursor) -> Change { store.change(row, decoder: decoder) }

    /// The row in place when it decodes without a warning (``ChangeDecoder/decode(changeID:transactionNumber:changeTypeRaw:entityNumber:entityPK:columns:tombstones:warnings:)``
    /// would give none and no tombstone): an insert or update, every column of the
    /// type Core Data writes, a known entity, and for an update a ZCOLUMNS that fits
    /// its entity's certain layout. Nil otherwise.
    func plainChange(_ row: RawCursor) -> PlainChange? {
        guard row.storageClass(0) == .integer, row.storageClass(1) == .integer, row.storageClass(2) == .integer,
              row.storageClass(3) == .integer, row.storageClass(4) == .integer else { return nil }
        let type = row.int64(2)
        guard type == 0 || type == 1, let entity = decoder.entity(row.int64(3)) else { return nil }
        let columns: UnsafeRawBufferPointer?
        switch row.storageClass(5) {
        case .blob: columns = row.blob(5)
        case .null: columns = nil
        case .integer, .real, .text: return nil
        }
        if type == 1 {
            guard entity.updatesDecodePlainly, let layout = entity.layout, let columns,
                  layout.fits(length: columns.count, lastByte: columns.last) else { return nil }
        }
        return PlainChange(changeID: row.int64(0), transactionNumber: row.int64(1), isUpdate: type == 1, entity: entity,
                           entityPK: row.int64(4), columns: columns)
    }
}
