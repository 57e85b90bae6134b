/// The changes of one transaction, decoded as they are read. Valid only
/// inside the call that hands it out, and read once.
public struct ChangeStream {
    private enum Source {
        /// A cursor over this transaction's changes alone; only the change IDs in the set, when given
        /// (an object filter's matches).
        case cursor(RawCursor, keep: Set<Int64>?)
        /// The changes of many transactions, of which this stream reads transaction `number`'s.
        case merged(TransactionOrderedRows, transaction: Int64)
        /// Pages read each in a read of its own.
        case pages(ChangePages)
        /// No change.
        case none
    }

    private let source: Source
    private let rows: ChangeRows?

    init(cursor: RawCursor, keep: Set<Int64>?, rows: ChangeRows?) {
        source = .cursor(cursor, keep: keep)
        self.rows = rows
    }

    /// Transaction `number`'s changes from `changes`.
    init(_ changes: TransactionOrderedRows, transaction number: Int64, rows: ChangeRows?) {
        source = .merged(changes, transaction: number)
        self.rows = rows
    }

    /// A stream of no change (for a read of transactions alone).
    static var empty: ChangeStream { ChangeStream(source: .none) }

    private init(source: Source) {
        self.source = source
        rows = nil
    }

    /// The changes `pages` reads.
    init(_ pages: ChangePages) {
        source = .pages(pages)
        rows = nil
    }

    /// Calls `body` with each change, by change ID.
    public func forEach(_ body: (Change) throws -> Void) throws {
        if case .pages(let pages) = source {
            while let change = try pages.next() { try body(change) }
            return
        }
        guard let rows else { return }
        try eachRow { try body(rows.change($0)) }
    }

    /// Calls `plain` with each change that decodes without a warning, read in place,
    /// and `decoded` with each other one, by change ID: what ``forEach(_:)`` hands out,
    /// without building the plain ones.
    public func forEach(plain: (PlainChange) throws -> Void, decoded: (Change) throws -> Void) throws {
        guard let rows else { return try forEach(decoded) }
        try eachRow { cursor in
            if let change = rows.plainChange(cursor) {
                try plain(change)
            } else {
                try decoded(rows.change(cursor))
            }
        }
    }

    /// The next change; nil after the last.
    func next() throws -> Change? {
        var found: Change?
        switch source {
        case .pages(let pages): return try pages.next()
        case .cursor(let cursor, let keep):
            while found == nil, try cursor.next() {
                if keep?.contains(cursor.int64(0)) ?? true { found = rows?.change(cursor) }
            }
        case .merged(let changes, let number):
            if try changes.next(of: number) { found = rows?.change(changes.cursor) }
        case .none:
            break
        }
        return found
    }

    /// Calls `body` with the cursor on each of the transaction's rows (the source looked at once,
    /// not per row: this is the export's inner loop). Pages have no cursor.
    private func eachRow(_ body: (RawCursor) throws -> Void) throws {
        switch source {
        case .cursor(let cursor, let keep?):
            while try cursor.next() {
                if keep.contains(cursor.int64(0)) { try body(cursor) }
            }
        case .cursor(let cursor, nil):
            while try cursor.next() { try body(cursor) }
        case .merged(let changes, let number):
            // The cursor taken once (each read of the property would retain its statement).
            let cursor = changes.cursor
            while try changes.next(of: number) { try body(cursor) }
        case .pages, .none:
            break
        }
    }

    /// Ends the read (a merged stream leaves the cursor to the next transaction).
    func finish() {
        if case .cursor(let cursor, _) = source { cursor.finish() }
    }
}

/// Decodes the rows of a change select (``HistorySQL/changeFixedColumnCount`` columns,
/// then the tombstones) for the streams of one read.
final class ChangeRows {
    private let store: HistoryStore
    private let decoder: ChangeDecoder
    /// The decoder's entities by number up to its largest small one, unretained: what
    /// ``plainChange(_:)`` looks up per change without retaining the entity (the decoder,
    /// held here, keeps them).
    private let entities: UnsafeMutableBufferPointer<Unmanaged<DecodedEntity>?>

    init(store: HistoryStore, decoder: ChangeDecoder) {
        self.store = store
        self.decoder = decoder
        let small = decoder.entities.map(\.number).filter { (0..<4_096).contains($0) }
        entities = .allocate(capacity: Int(small.max() ?? 0) + 1)
        entities.initialize(repeating: nil)
        for number in small { entities[Int(number)] = decoder.entity(number).map { Unmanaged.passUnretained($0) } }
    }

    deinit { entities.deallocate() }

    /// Entity `number`, unretained.
    private func entity(_ number: Int64) -> Unmanaged<DecodedEntity>? {
        if number >= 0 && number < Int64(entities.count) { return entities[Int(number)] }
        return decoder.entity(number).map { Unmanaged.passUnretained($0) }
    }

    func change(_ row: RawCursor) -> Change { store.change(row, decoder: decoder) }

    /// The row in place when it decodes without a warning
    /// (``ChangeDecoder/decode``
    /// would give none and no tombstone): an insert or update, every column of the
    /// type Core Data writes, a known entity, and for an update a ZCOLUMNS that fits
    /// its entity's certain layout. Nil otherwise.
    func plainChange(_ row: RawCursor) -> PlainChange? {
        guard row.storageClass(0) == .integer, row.storageClass(1) == .integer, row.storageClass(2) == .integer,
            row.storageClass(3) == .integer, row.storageClass(4) == .integer
        else { return nil }
        let type = row.int64(2)
        guard type == 0 || type == 1, let entity = entity(row.int64(3))?.takeUnretainedValue() else { return nil }
        let columns: UnsafeRawBufferPointer?
        switch row.storageClass(5) {
        case .blob: columns = row.blob(5)
        case .null: columns = nil
        case .integer, .real, .text: return nil
        }
        if type == 1 && !entity.decodesPlainly(update: columns) { return nil }
        return PlainChange(
            changeID: row.int64(0), transactionNumber: row.int64(1), isUpdate: type == 1, entity: entity,
            entityIndex: entity.index, entityPK: row.int64(4), columns: columns)
    }
}
