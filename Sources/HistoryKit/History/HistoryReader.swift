import Foundation
import GRDB

/// Streaming reads of transactions and changes. Rows are handed to the
/// caller one at a time from an SQLite cursor, so memory does not grow with
/// the number of rows.
extension HistoryStore {
    /// A decoder for this store's changes with `model`.
    public func makeDecoder(model: ModelResolution) -> ChangeDecoder {
        ChangeDecoder(storeUUID: storeUUID, catalog: catalog, schema: schema, model: model)
    }

    /// Calls `body` with each transaction matching `query`, in `query.order`.
    public func forEachTransaction(_ query: HistoryQuery, _ body: (Transaction) throws -> Void) throws {
        let sql = try HistorySQL(store: self, query: query)
        try read { db in
            let cursor = try RawCursor(db.makeStatement(sql: sql.transactionSelect(limit: query.limit)), arguments: sql.arguments)
            defer { cursor.finish() }
            while try cursor.next() { try body(transaction(cursor)) }
        }
    }

    /// Calls `body` with each decoded change matching `query`, by transaction then change ID.
    public func forEachChange(_ query: HistoryQuery, decoder: ChangeDecoder, _ body: (Change) throws -> Void) throws {
        let sql = try HistorySQL(store: self, query: query)
        try read { db in
            let cursor = try RawCursor(db.makeStatement(sql: sql.changeSelect(limit: query.limit)), arguments: sql.arguments)
            defer { cursor.finish() }
            while try cursor.next() { try body(change(cursor, decoder: decoder)) }
        }
    }

    /// Calls `body` with each transaction matching `query` and its changes
    /// (only those matching the query's entity and type filters).
    public func forEachTransactionWithChanges(_ query: HistoryQuery, decoder: ChangeDecoder,
                                              _ body: (Transaction, [Change]) throws -> Void) throws {
        let sql = try HistorySQL(store: self, query: query)
        try read { db in
            let changesStatement = try db.makeStatement(sql: sql.changesOfTransactionSelect())
            let cursor = try RawCursor(db.makeStatement(sql: sql.transactionSelect(limit: query.limit)), arguments: sql.arguments)
            defer { cursor.finish() }
            var changes: [Change] = []
            while try cursor.next() {
                let tx = transaction(cursor)
                var args = sql.changeFilterArguments
                args += [tx.number]
                changes.removeAll(keepingCapacity: true)
                let changeCursor = try RawCursor(changesStatement, arguments: args)
                while try changeCursor.next() { changes.append(change(changeCursor, decoder: decoder)) }
                try body(tx, changes)
            }
        }
    }

    /// The transaction numbered `number`, or nil.
    public func transaction(number: Int64) throws -> Transaction? {
        var found: Transaction?
        // A token or a damaged store can name the extreme numbers: no bound past them.
        let after = number > .min ? HistoryQuery.Bound.transaction(number - 1) : nil
        let before = number < .max ? HistoryQuery.Bound.transaction(number + 1) : nil
        try forEachTransaction(HistoryQuery(after: after, before: before, limit: 1)) {
            found = $0
        }
        return found
    }

    /// The decoded changes of transaction `number`, by change ID.
    public func changes(inTransaction number: Int64, decoder: ChangeDecoder) throws -> [Change] {
        let sql = try HistorySQL(store: self, query: HistoryQuery())
        return try read { db in
            let cursor = try RawCursor(db.makeStatement(sql: sql.changesOfTransactionSelect()), arguments: [number])
            defer { cursor.finish() }
            var out: [Change] = []
            while try cursor.next() { out.append(change(cursor, decoder: decoder)) }
            return out
        }
    }

    private func transaction(_ row: RawCursor) -> Transaction {
        Transaction(number: row.int64(0), timestamp: row.optionalDouble(1), author: row.optionalText(2), contextName: row.optionalText(3),
                    bundleID: row.optionalText(4), processID: row.optionalText(5), storeUUID: storeUUID,
                    queryGenerationLength: row.optionalInt64(6).map { Int($0) }, changeCount: Int(row.int64(7)))
    }

    private func change(_ row: RawCursor, decoder: ChangeDecoder) -> Change {
        var tombstones: [TombstoneValue?] = []
        tombstones.reserveCapacity(decoder.tombstoneColumnCount)
        for i in 0..<decoder.tombstoneColumnCount {
            tombstones.append(row.tombstone(Int32(HistorySQL.changeFixedColumnCount + i)))
        }
        return decoder.decode(changeID: row.int64(0), transactionNumber: row.int64(1),
                              changeTypeRaw: row.isNull(2) ? -1 : row.int64(2),
                              entityNumber: row.int64(3), entityPK: row.int64(4),
                              columns: row.optionalBytes(5), tombstones: tombstones)
    }
}
