import Foundation
import GRDB

/// A part of a read of transactions (``HistoryStore/readTransactions(_:decoder:layout:_:)``):
/// consecutive transaction numbers read on one connection of several, or the whole read.
public struct TransactionChunk {
    /// The chunk's place, from 0: chunk `i + 1` holds the transactions after chunk `i`'s.
    public let index: Int
    fileprivate let store: HistoryStore
    fileprivate let part: Part

    fileprivate enum Part {
        /// Numbers read with statements prepared on one connection of several.
        case numbers(ClosedRange<Int64>, NumberRead)
        /// The whole read, on the caller's thread: in one read, or a page at a time (`pageSize`).
        /// Without a decoder, transactions alone (their streams hold no change).
        case whole(HistoryQuery, ChangeDecoder?, pageSize: Int?)
    }

    /// The statements of a read in numbered chunks.
    fileprivate struct NumberRead {
        let sql: HistorySQL
        /// ``HistorySQL/transactionWalkSelect()`` when the query has change conditions
        /// (``HistorySQL/walksChanges``), else ``HistorySQL/transactionSelect(limit:numbered:counted:)``.
        let transactions: Statement
        /// ``HistorySQL/changesInRangeSelect()`` when the query has change conditions;
        /// ``HistorySQL/changesOfTransactionsSelect()`` when it selects every transaction of the
        /// chunk; else ``HistorySQL/changesOfTransactionSelect()``.
        let changes: Statement
        /// ``ChangeCounts/select`` when the query selects every transaction of the chunk (the
        /// transactions are read without their counts: one walk of the index counts them all) or
        /// has change conditions (the index is sought for a transaction far past the last one
        /// counted, not stepped through to it).
        let counts: Statement?
        /// ``HistorySQL/nameLookup`` when the query looks names up (``HistorySQL/looksUpNames``).
        let names: Statement?
        /// Nil: transactions alone (their streams hand out no change).
        let decoder: ChangeDecoder?
    }

    /// The transaction numbers the chunk holds; nil when it is the whole read.
    public var numbers: ClosedRange<Int64>? {
        if case .numbers(let numbers, _) = part { return numbers }
        return nil
    }

    /// Whether the chunk is the whole read, on the caller's thread (the read was not split).
    public var isWhole: Bool { numbers == nil }

    /// Calls `body` with each matching transaction of the chunk, in order, and a stream of its
    /// changes (only those matching the query's entity, type and object filters, decoded one
    /// at a time as `body` reads them: a transaction of a million changes is never held in
    /// memory). An SQLite failure names the store.
    public func forEach(_ body: (Transaction, ChangeStream) throws -> Void) throws {
        try forEach(plain: { try body($0.transaction(storeUUID: store.storeUUID), $1) }, decoded: body)
    }

    /// As ``forEach(_:)``, calling `plain` with each transaction that reads as a
    /// ``PlainTransaction`` (not building a ``Transaction``), and `decoded` with the others.
    public func forEach(
        plain: (PlainTransaction, ChangeStream) throws -> Void, decoded: (Transaction, ChangeStream) throws -> Void
    ) throws {
        switch part {
        case .whole(let query, let decoder?, let pageSize?):
            try store.forEachTransactionWithChangesInPages(query, decoder: decoder, pageSize: pageSize, decoded)
        case .whole(let query, let decoder?, nil):
            try store.forEachTransactionWithChanges(query, decoder: decoder, decoded)
        case .whole(let query, nil, _):
            try store.forEachTransaction(query) { try decoded($0, .empty) }
        case .numbers(let numbers, let read):
            do {
                try read.read(numbers, store, plain: plain, decoded: decoded)
            } catch {
                throw store.connection.storeError(error)
            }
        }
    }
}

extension TransactionChunk.NumberRead {
    fileprivate func read(
        _ numbers: ClosedRange<Int64>, _ store: HistoryStore,
        plain: (PlainTransaction, ChangeStream) throws -> Void, decoded: (Transaction, ChangeStream) throws -> Void
    ) throws {
        let rows = decoder.map { ChangeRows(store: store, decoder: $0) }
        let names = TransactionNames(sql, lookup: self.names)
        /// Hands out the transaction on `cursor`'s row with its stream of changes.
        func hand(_ cursor: RawCursor, count: Int?, _ stream: ChangeStream) throws {
            if let tx = try store.plainTransaction(cursor, changeCount: count, names: names) {
                try plain(tx, stream)
            } else {
                try decoded(try store.transaction(cursor, changeCount: count, names: names), stream)
            }
        }
        if sql.walksChanges, let counts {
            let matching = TransactionOrderedRows(
                try RawCursor(
                    changes, arguments: sql.changeFilterArguments + [numbers.lowerBound, numbers.upperBound]),
                numberColumn: 1)
            defer { matching.finish() }
            let changeCounts = try ChangeCounts(counts, range: numbers, seek: ChangeCounts.seekDistance)
            defer { changeCounts.finish() }
            return try store.walkTransactions(beside: matching, sql: sql, walk: transactions, limit: nil) {
                walk, number in
                try hand(
                    walk, count: try changeCounts.count(of: number),
                    ChangeStream(matching, transaction: number, rows: rows))
            }
        }
        let cursor = try RawCursor(transactions, arguments: sql.arguments + [numbers.lowerBound, numbers.upperBound])
        defer { cursor.finish() }
        let merge =
            sql.selectsNumberRange
            ? TransactionOrderedRows(
                try RawCursor(changes, arguments: [numbers.lowerBound, numbers.upperBound]), numberColumn: 1) : nil
        defer { merge?.finish() }
        let changeCounts = try counts.map { try ChangeCounts($0, range: numbers) }
        defer { changeCounts?.finish() }
        while try cursor.next() {
            let number = cursor.int64(0)
            let stream =
                try merge.map { ChangeStream($0, transaction: number, rows: rows) }
                ?? store.changeStream(of: number, sql: sql, statement: changes, rows: rows)
            defer { stream.finish() }
            try hand(cursor, count: try changeCounts?.count(of: number), stream)
        }
    }
}

extension HistoryStore {
    /// Queries spanning fewer transaction numbers are read in one go.
    public static let chunkedReadMinimum: Int64 = 5_000
    /// Transaction numbers per chunk: small, so that a thread formatting a chunk ahead of
    /// its turn rarely fills what it may hold (see the caller) and waits.
    public static let chunkSpan: Int64 = 512

    /// `span` cut into consecutive chunks of about `chunkSpan` numbers, at most 65,536 (sparse
    /// numbers make large but light chunks); nil when it spans fewer than `minimum` numbers.
    package static func chunks(
        of span: ClosedRange<Int64>, minimum: Int64 = chunkedReadMinimum, span chunkSpan: Int64 = chunkSpan
    ) -> [ClosedRange<Int64>]? {
        // In unsigned arithmetic: a damaged store's numbers may span all of Int64.
        let numbers = UInt64(bitPattern: span.upperBound &- span.lowerBound)
        guard numbers >= UInt64(max(minimum, 0)) else { return nil }
        return split(
            span.lowerBound, span.upperBound, parts: Int(min(numbers / UInt64(max(chunkSpan, 1)) + 1, 1 << 16)))
    }

    /// Reads the transactions matching `query` with their changes, decoded with `decoder` (nil:
    /// transactions alone, their streams empty), laid out as `layout` says: `body` is called
    /// with each chunk of the read, which hands out its transactions in order.
    ///
    /// Split (``ReadLayout/split(minimum:span:)``), the read is cut into chunks of consecutive
    /// transaction numbers read on one connection per core at once: `body` is called with each
    /// chunk on one of several threads, chunks taken in order (a chunk is taken only when every
    /// earlier one has been). Transactions committed after the read began are left out, as in one
    /// snapshot. When `body` throws, no further chunk is taken and the first error is thrown.
    /// A query is read whole instead (one chunk, on this thread) when it is better read in one
    /// go: with a limit, newest first, on one core, or over fewer than `minimum` transaction
    /// numbers. An object filter that matched few changes (a list of
    /// them, which SQLite would build anew for every chunk) is read in one chunk, here.
    ///
    /// Otherwise `body` is called once, on this thread, with the whole read: in one read
    /// (``ReadLayout/oneRead``), or a page at a time with no read open while the chunk hands
    /// out a page's transactions (``ReadLayout/pages(size:)``: oldest first, without the
    /// query's limit and order; transactions alone are read in one read).
    public func readTransactions(
        _ query: HistoryQuery, decoder: ChangeDecoder?, layout: ReadLayout = .split(),
        _ body: (TransactionChunk) throws -> Void
    ) throws {
        switch layout {
        case .split(let minimum, let span):
            // The threads reading chunks have ended, and dropped `body`, when this call returns.
            let split = try withoutActuallyEscaping(body) {
                try readInChunks(query, decoder: decoder, minimum: minimum, span: span, $0)
            }
            if split { return }
            try body(TransactionChunk(index: 0, store: self, part: .whole(query, decoder, pageSize: nil)))
        case .oneRead:
            try body(TransactionChunk(index: 0, store: self, part: .whole(query, decoder, pageSize: nil)))
        case .pages(let size):
            try body(TransactionChunk(index: 0, store: self, part: .whole(query, decoder, pageSize: size)))
        }
    }

    /// Reads `query` in chunks (``readTransactions(_:decoder:layout:_:)``, split); false, calling
    /// nothing, when it is better read in one go.
    private func readInChunks(
        _ query: HistoryQuery, decoder: ChangeDecoder?, minimum: Int64, span chunkSpan: Int64,
        _ body: @escaping (TransactionChunk) throws -> Void
    ) throws -> Bool {
        let cores = Cores.usable
        guard query.limit == nil, query.order == .ascending, cores > 1 else { return false }
        return try read { db in
            // An object's few changes are found first by a scan (a list of them); else change conditions
            // are met by a walk beside each chunk's matching changes.
            let sql = try historySQL(query, in: db)
            guard let span = try numberSpan(query, db),
                let ranges = Self.chunks(of: span, minimum: minimum, span: chunkSpan)
            else { return false }
            /// Chunk `index` of the numbers `numbers`, read with statements prepared on `db`.
            func chunks(_ db: Database) throws -> (_ index: Int, _ numbers: ClosedRange<Int64>) -> TransactionChunk {
                let walk = sql.selectsNumberRange
                let beside = sql.walksChanges
                let read = TransactionChunk.NumberRead(
                    sql: sql,
                    transactions: try db.makeStatement(
                        sql: beside
                            ? sql.transactionWalkSelect()
                            : sql.transactionSelect(limit: nil, numbered: true, counted: !walk)),
                    changes: try db.makeStatement(
                        sql: beside
                            ? sql.changesInRangeSelect()
                            : walk ? sql.changesOfTransactionsSelect() : sql.changesOfTransactionSelect()),
                    counts: beside || walk ? try db.makeStatement(sql: ChangeCounts.select) : nil,
                    names: sql.looksUpNames ? try db.makeStatement(sql: HistorySQL.nameLookup) : nil,
                    decoder: decoder)
                return { TransactionChunk(index: $0, store: self, part: .numbers($1, read)) }
            }
            if sql.matchedChanges != nil {
                try body(try chunks(db)(0, span))
                return true
            }
            try readChunks(ranges.count, cores: cores, prepare: chunks) { chunk, i in try body(chunk(i, ranges[i])) }
            return true
        }
    }

    /// Calls `body` with each of `count` chunk indexes, taken in order by one thread per core
    /// (`cores`), each with what `prepare` made on its thread's connection. When `body` throws,
    /// no further chunk is taken and the first error is thrown.
    func readChunks<Prepared>(
        _ count: Int, cores: Int, prepare: @escaping (Database) throws -> Prepared,
        _ body: @escaping (Prepared, Int) throws -> Void
    ) throws {
        let queue = ChunkQueue(count: count)
        _ = try connection.readInParallel(cores) { db, _ in
            let prepared = try prepare(db)
            while let i = queue.take() {
                do {
                    try body(prepared, i)
                } catch {
                    queue.stop()
                    throw error
                }
            }
        }
    }
}

/// Hands out chunk indexes in order to the threads reading them.
package struct ChunkQueue: Sendable {
    private let next = Locked(0)
    private let count: Int

    package init(count: Int) { self.count = count }

    package func take() -> Int? {
        next.withLock { next in
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    /// Hands out no more.
    package func stop() { next.set(count) }
}
