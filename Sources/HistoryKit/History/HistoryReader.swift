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
            let cursor = try Row.fetchCursor(db, sql: sql.transactionSelect(limit: query.limit), arguments: sql.arguments)
            while let row = try cursor.next() { try body(transaction(row)) }
        }
    }

    /// Calls `body` with each decoded change matching `query`, by transaction then change ID.
    public func forEachChange(_ query: HistoryQuery, decoder: ChangeDecoder, _ body: (Change) throws -> Void) throws {
        let sql = try HistorySQL(store: self, query: query)
        try read { db in
            let cursor = try Row.fetchCursor(db, sql: sql.changeSelect(limit: query.limit), arguments: sql.arguments)
            while let row = try cursor.next() { try body(change(row, decoder: decoder)) }
        }
    }

    /// Calls `body` with each transaction matching `query` and its changes
    /// (only those matching the query's entity and type filters).
    public func forEachTransactionWithChanges(_ query: HistoryQuery, decoder: ChangeDecoder,
                                              _ body: (Transaction, [Change]) throws -> Void) throws {
        let sql = try HistorySQL(store: self, query: query)
        try read { db in
            let changesStatement = try db.cachedStatement(sql: sql.changesOfTransactionSelect())
            let cursor = try Row.fetchCursor(db, sql: sql.transactionSelect(limit: query.limit), arguments: sql.arguments)
            while let row = try cursor.next() {
                let tx = transaction(row)
                var args = sql.changeFilterArguments
                args += [tx.number]
                var changes: [Change] = []
                let changeCursor = try Row.fetchCursor(changesStatement, arguments: args)
                while let c = try changeCursor.next() { changes.append(change(c, decoder: decoder)) }
                try body(tx, changes)
            }
        }
    }

    /// The transaction numbered `number`, or nil.
    public func transaction(number: Int64) throws -> Transaction? {
        var found: Transaction?
        try forEachTransaction(HistoryQuery(after: .transaction(number - 1), before: .transaction(number + 1), limit: 1)) {
            found = $0
        }
        return found
    }

    /// The decoded changes of transaction `number`, by change ID.
    public func changes(inTransaction number: Int64, decoder: ChangeDecoder) throws -> [Change] {
        let sql = try HistorySQL(store: self, query: HistoryQuery())
        return try read { db in
            let cursor = try Row.fetchCursor(db, sql: sql.changesOfTransactionSelect(), arguments: [number])
            var out: [Change] = []
            while let row = try cursor.next() { out.append(change(row, decoder: decoder)) }
            return out
        }
    }

    private func transaction(_ row: Row) -> Transaction {
        Transaction(number: row[0], timestamp: row[1], author: row[2], contextName: row[3], bundleID: row[4],
                    processID: row[5], storeUUID: storeUUID, queryGenerationLength: row[6], changeCount: row[7] ?? 0)
    }

    private func change(_ row: Row, decoder: ChangeDecoder) -> Change {
        var tombstones: [TombstoneValue?] = []
        tombstones.reserveCapacity(decoder.tombstoneColumnCount)
        for i in 0..<decoder.tombstoneColumnCount {
            tombstones.append(Self.tombstoneValue(row[HistorySQL.changeFixedColumnCount + i]))
        }
        let columns: Data? = row[5]
        return decoder.decode(changeID: row[0] ?? 0, transactionNumber: row[1] ?? 0, changeTypeRaw: row[2] ?? -1,
                              entityNumber: row[3] ?? 0, entityPK: row[4] ?? 0,
                              columns: columns.map { [UInt8]($0) }, tombstones: tombstones)
    }

    private static func tombstoneValue(_ value: DatabaseValue) -> TombstoneValue? {
        switch value.storage {
        case .null: return nil
        case .int64(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .blob(let d): return .blob([UInt8](d))
        }
    }
}
