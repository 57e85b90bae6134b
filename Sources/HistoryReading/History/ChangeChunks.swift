import GRDB

/// The changes of consecutive transaction numbers of a query (or an object's few changes, in
/// one chunk), read on one connection: a part of ``HistoryStore/readChangesInChunks(_:decoder:minimum:span:_:)``.
public struct ChangeChunk {
    /// The chunk's place, from 0: chunk `i + 1` holds the changes after chunk `i`'s.
    public let index: Int
    /// The chunk's changes: ``HistorySQL/changesInRangeSelect(afterFirst:)`` after the number
    /// of the chunk before (a REAL number between two chunks' too), or the list of an object's.
    fileprivate let changes: Statement
    fileprivate let arguments: StatementArguments
    fileprivate let store: HistoryStore
    fileprivate let decoder: ChangeDecoder

    /// Calls `plain` with each matching change of the chunk that decodes without a warning,
    /// read in place, and `decoded` with each other one, by transaction then change number,
    /// as ``HistoryStore/forEachChange(_:decoder:_:)`` hands them out (and with its errors:
    /// an SQLite failure names the store).
    public func forEach(plain: (PlainChange) throws -> Void, decoded: (Change) throws -> Void) throws {
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

extension HistoryStore {
    /// Reads what ``forEachChange(_:decoder:_:)`` reads, in chunks of consecutive transaction
    /// numbers on one connection per core at once, as ``readInChunks(_:decoder:minimum:span:_:)``
    /// reads transactions: `body` is called with each chunk on one of several threads, chunks
    /// taken in order. Changes of transactions committed after the read began are left out.
    ///
    /// Returns false, calling nothing, when the query is better read in one go: with a limit,
    /// newest first, on one core, with a transaction condition (its changes are found by
    /// their transactions), over fewer than `minimum` transaction numbers, or when a change's
    /// transaction number is not a number (such changes come first or last in one read). An
    /// object filter that matched few changes (a list of them) reads them in one chunk, here.
    public func readChangesInChunks(
        _ query: HistoryQuery, decoder: ChangeDecoder, minimum: Int64 = chunkedReadMinimum,
        span chunkSpan: Int64 = chunkSpan, _ body: @escaping (ChangeChunk) throws -> Void
    ) throws -> Bool {
        let cores = Cores.usable
        guard query.limit == nil, query.order == .ascending, cores > 1 else { return false }
        return try read { db in
            guard try HistorySQL(store: self, query: query).selectsChangesAlone else { return false }
            let sql = try historySQL(query, in: db)
            if sql.matchedChanges != nil {
                try body(
                    ChangeChunk(
                        index: 0, changes: try db.makeStatement(sql: sql.changeSelect(limit: nil)),
                        arguments: sql.arguments,
                        store: self, decoder: decoder))
                return true
            }
            // In the index, NULL comes before every number, text and blobs after.
            guard
                try db.firstRow(
                    "SELECT 1 FROM ACHANGE WHERE ZTRANSACTIONID IS NULL OR ZTRANSACTIONID >= '' LIMIT 1", { _ in true })
                    == nil,
                let span = try db.firstRow(
                    "SELECT MIN(ZTRANSACTIONID), MAX(ZTRANSACTIONID) FROM ACHANGE",
                    { row in
                        row.storageClass(0) == .integer && row.storageClass(1) == .integer
                            ? row.int64(0)...row.int64(1) : nil
                    }) ?? nil,
                let ranges = Self.chunks(of: span, minimum: minimum, span: chunkSpan)
            else { return false }
            try readChunks(
                ranges.count, cores: cores,
                prepare: { try $0.makeStatement(sql: sql.changesInRangeSelect(afterFirst: true)) }
            ) { changes, i in
                // The first chunk from below every number.
                let after: DatabaseValueConvertible = i > 0 ? ranges[i - 1].upperBound : -Double.infinity
                try body(
                    ChangeChunk(
                        index: i, changes: changes,
                        arguments: sql.changeFilterArguments + [after, ranges[i].upperBound],
                        store: self, decoder: decoder))
            }
            return true
        }
    }
}
