import GRDB

/// The changes of consecutive transaction numbers of a query, read on one connection: a part
/// of ``HistoryStore/readChangesInChunks(_:decoder:minimum:span:_:)``.
public struct ChangeChunk {
    /// The chunk's place, from 0: chunk `i + 1` holds the changes after chunk `i`'s.
    public let index: Int
    public let numbers: ClosedRange<Int64>
    /// The chunk before's last number: the chunk holds the changes numbered after it (a REAL
    /// between two chunks' numbers too); nil for the first.
    fileprivate let after: Int64?
    fileprivate let store: HistoryStore
    fileprivate let sql: HistorySQL
    /// ``HistorySQL/changesInRangeSelect(afterFirst:)`` after a number.
    fileprivate let changes: Statement
    fileprivate let decoder: ChangeDecoder

    /// Calls `plain` with each matching change of the chunk that decodes without a warning,
    /// read in place, and `decoded` with each other one, by transaction then change number,
    /// as ``HistoryStore/forEachChange(_:decoder:_:)`` hands them out (and with its errors:
    /// an SQLite failure names the store).
    public func forEach(plain: (PlainChange) throws -> Void, decoded: (Change) throws -> Void) throws {
        do {
            let cursor = try RawCursor(changes, arguments: sql.changeFilterArguments
                                       + [after.map { $0 as DatabaseValueConvertible } ?? -Double.infinity, numbers.upperBound])
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
    /// transaction number is not a number (such changes come first or last in one read).
    public func readChangesInChunks(_ query: HistoryQuery, decoder: ChangeDecoder, minimum: Int64 = chunkedReadMinimum,
                                    span chunkSpan: Int64 = chunkSpan, _ body: @escaping (ChangeChunk) throws -> Void) throws -> Bool {
        let cores = Cores.usable
        guard query.limit == nil, query.order == .ascending, cores > 1 else { return false }
        return try read { db in
            let sql = try HistorySQL(store: self, query: query)
            // In the index, NULL comes before every number, text and blobs after.
            guard sql.selectsChangesAlone,
                  try db.firstRow("SELECT 1 FROM ACHANGE WHERE ZTRANSACTIONID IS NULL OR ZTRANSACTIONID >= '' LIMIT 1", { _ in true }) == nil,
                  let span = try db.firstRow("SELECT MIN(ZTRANSACTIONID), MAX(ZTRANSACTIONID) FROM ACHANGE", { row in
                      row.storageClass(0) == .integer && row.storageClass(1) == .integer ? row.int64(0)...row.int64(1) : nil
                  }) ?? nil,
                  let ranges = Self.chunks(of: span, minimum: minimum, span: chunkSpan) else { return false }
            let queue = ChunkQueue(count: ranges.count)
            _ = try connection.readInParallel(cores) { db, _ in
                let changes = try db.makeStatement(sql: sql.changesInRangeSelect(afterFirst: true))
                while let i = queue.take() {
                    do {
                        try body(ChangeChunk(index: i, numbers: ranges[i], after: i > 0 ? ranges[i - 1].upperBound : nil, store: self, sql: sql, changes: changes, decoder: decoder))
                    } catch {
                        queue.stop()
                        throw error
                    }
                }
            }
            return true
        }
    }
}
