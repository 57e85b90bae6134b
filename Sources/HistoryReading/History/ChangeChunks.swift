import GRDB

/// A part of a read of changes (``HistoryStore/readChanges(_:decoder:layout:_:)``): the
/// changes of consecutive transaction numbers read on one connection of several (or an
/// object's few changes, in one chunk), or the whole read.
public struct ChangeChunk {
    /// The chunk's place, from 0: chunk `i + 1` holds the changes after chunk `i`'s.
    public let index: Int
    fileprivate let store: HistoryStore
    fileprivate let decoder: ChangeDecoder
    fileprivate let part: Part

    fileprivate enum Part {
        /// The list of an object's changes, on the caller's thread.
        case statement(Statement, StatementArguments)
        /// ``HistorySQL/changesInRangeSelect(afterFirst:)`` after the number of the chunk before
        /// (a REAL number between two chunks' too), with what reads the transactions of
        /// `numbers` beside them (the chunk's, and the one before's last, which a REAL number
        /// after it is read as).
        case range(Statement, StatementArguments, ChunkTransactions.Statements, numbers: ClosedRange<Int64>)
        /// The whole read, on the caller's thread.
        case whole(HistoryQuery)
    }

    /// Whether the chunk is the whole read, on the caller's thread (the read was not split).
    public var isWhole: Bool {
        if case .whole = part { return true }
        return false
    }

    /// Calls `plain` with each matching change of the chunk that decodes without a warning,
    /// read in place, and `decoded` with each other one, by transaction then change number
    /// (and the whole read's every change to `decoded`).
    public func forEach(plain: (PlainChange) throws -> Void, decoded: (Change) throws -> Void) throws {
        switch part {
        case .whole(let query):
            try store.forEachChange(query, decoder: decoder, decoded)
        case .statement(let changes, let arguments), .range(let changes, let arguments, _, _):
            do {
                let cursor = try RawCursor(changes, arguments: arguments)
                let stream = ChangeStream(cursor: cursor, keep: nil, rows: ChangeRows(store: store, decoder: decoder))
                defer { stream.finish() }
                try stream.forEach(plain: plain, decoded: decoded)
            } catch {
                throw store.connection.storeError(error)
            }
        }
    }

    /// As ``forEach(plain:decoded:)``, each change with its transaction: a chunk of a split
    /// read reads its transactions beside its changes; another looks them up in windows
    /// (``TransactionLookup``), decoded.
    public func forEach(
        withTransactions plain: (PlainChange, ChangeTransaction) throws -> Void,
        decoded: (Change, ChangeTransaction) throws -> Void
    ) throws {
        let transaction: (Int64) throws -> ChangeTransaction
        var beside: ChunkTransactions?
        defer { beside?.finish() }
        if case .range(_, _, let statements, let numbers) = part {
            let transactions: ChunkTransactions
            do {
                transactions = try ChunkTransactions(statements, numbers: numbers, store: store)
            } catch {
                throw store.connection.storeError(error)
            }
            beside = transactions
            // Its failures are the read's, named as the read names them.
            transaction = transactions.transaction(of:)
        } else {
            let lookup = TransactionLookup(store: store)
            transaction = { try lookup.transaction($0).map { .decoded($0) } ?? .gone }
        }
        try forEach(
            plain: { try plain($0, try transaction($0.transactionNumber)) },
            decoded: { try decoded($0, try transaction($0.transactionNumber)) })
    }

    /// Calls `body` with each change of the chunk, decoded, in order.
    public func forEach(_ body: (Change) throws -> Void) throws {
        try forEach(plain: { try body($0.change) }, decoded: body)
    }
}

extension HistoryStore {
    /// Reads the changes matching `query`, decoded with `decoder`, by transaction then change
    /// number, laid out as `layout` says (``readTransactions(_:decoder:layout:_:)`` tells how):
    /// `body` is called with each chunk of the read.
    ///
    /// Split, the changes are read in chunks of consecutive transaction numbers on one connection
    /// per core at once, chunks taken in order; changes of transactions committed after the read
    /// began are left out. The read is whole instead (one chunk, on this thread) with a limit,
    /// newest first, on one core, with a transaction condition (its changes are found by their
    /// transactions), over fewer than `minimum` transaction numbers, or when a change's
    /// transaction number is not a number (such changes come first or last in one read). An
    /// object filter that matched few changes (a list of them) reads them in one chunk, here.
    /// Changes alone are not read in pages: ``ReadLayout/pages(size:)`` reads them in one read.
    public func readChanges(
        _ query: HistoryQuery, decoder: ChangeDecoder, layout: ReadLayout = .split(),
        _ body: (ChangeChunk) throws -> Void
    ) throws {
        if case .split(let minimum, let span) = layout {
            // The threads reading chunks have ended, and dropped `body`, when this call returns.
            let split = try withoutActuallyEscaping(body) {
                try readChangesInChunks(query, decoder: decoder, minimum: minimum, span: span, $0)
            }
            if split { return }
        }
        try body(ChangeChunk(index: 0, store: self, decoder: decoder, part: .whole(query)))
    }

    /// Reads `query`'s changes in chunks (``readChanges(_:decoder:layout:_:)``, split); false,
    /// calling nothing, when they are better read in one go.
    private func readChangesInChunks(
        _ query: HistoryQuery, decoder: ChangeDecoder, minimum: Int64, span chunkSpan: Int64,
        _ body: @escaping (ChangeChunk) throws -> Void
    ) throws -> Bool {
        let cores = Cores.usable
        guard query.limit == nil, query.order == .ascending, cores > 1 else { return false }
        return try read { db in
            guard try HistorySQL(store: self, query: query).selectsChangesAlone else { return false }
            let sql = try historySQL(query, in: db)
            if sql.matchedChanges != nil {
                try body(
                    ChangeChunk(
                        index: 0, store: self, decoder: decoder,
                        part: .statement(try db.makeStatement(sql: sql.changeSelect(limit: nil)), sql.arguments)))
                return true
            }
            // In the index, NULL comes before every number, text and blobs after.
            guard
                try db.firstRow(
                    "SELECT 1 FROM ACHANGE WHERE ZTRANSACTIONID IS NULL OR ZTRANSACTIONID >= '' LIMIT 1", { _ in true })
                    == nil,
                let span = try db.firstRow(
                    // Apart: SQLite reads one end of the index for MIN or MAX alone, but scans
                    // the table for both in one select (a third of a second on 2M changes).
                    "SELECT (SELECT MIN(ZTRANSACTIONID) FROM ACHANGE), (SELECT MAX(ZTRANSACTIONID) FROM ACHANGE)",
                    { row in
                        row.storageClass(0) == .integer && row.storageClass(1) == .integer
                            ? row.int64(0)...row.int64(1) : nil
                    }) ?? nil,
                let ranges = Self.chunks(of: span, minimum: minimum, span: chunkSpan)
            else { return false }
            try readChunks(
                ranges.count, cores: cores,
                prepare: {
                    (
                        try $0.makeStatement(sql: sql.changesInRangeSelect(afterFirst: true)),
                        try ChunkTransactions.Statements(sql, $0)
                    )
                }
            ) { prepared, i in
                // The first chunk from below every number.
                let after: DatabaseValueConvertible = i > 0 ? ranges[i - 1].upperBound : -Double.infinity
                try body(
                    ChangeChunk(
                        index: i, store: self, decoder: decoder,
                        part: .range(
                            prepared.0, sql.changeFilterArguments + [after, ranges[i].upperBound], prepared.1,
                            numbers: (i > 0 ? ranges[i - 1].upperBound : .min)...ranges[i].upperBound)))
            }
            return true
        }
    }
}
