import Foundation
import GRDB

/// The reads in one go behind ``readTransactions(_:decoder:layout:_:)`` and
/// ``readChanges(_:decoder:layout:_:)``: rows are handed to the caller one at a time
/// from an SQLite cursor, so memory does not grow with the number of rows.
extension HistoryStore {
    /// A decoder for this store's changes with `model`.
    public func makeDecoder(model: ModelResolution) -> ChangeDecoder {
        ChangeDecoder(storeUUID: storeUUID, catalog: catalog, schema: schema, model: model)
    }

    /// Calls `body` with each transaction matching `query`, in `query.order`.
    func forEachTransaction(_ query: HistoryQuery, _ body: (Transaction) throws -> Void) throws {
        try read { db in
            let sql = try historySQL(query, in: db)
            if sql.scansObjects, query.order == .ascending {
                return try walkObjectTransactions(sql, limit: query.limit, withChanges: false, db) { tx, _ in
                    try body(try tx())
                }
            }
            let cursor = try RawCursor(
                db.makeStatement(sql: sql.transactionSelect(limit: query.limit)), arguments: sql.arguments)
            defer { cursor.finish() }
            let names = try TransactionNames(sql, db)
            while try cursor.next() { try body(try transaction(cursor, names: names)) }
        }
    }

    /// Calls `body` with each decoded change matching `query`, by transaction then change ID.
    func forEachChange(_ query: HistoryQuery, decoder: ChangeDecoder, _ body: (Change) throws -> Void) throws {
        try read { db in
            let sql = try historySQL(query, in: db)
            let cursor = try RawCursor(
                db.makeStatement(sql: sql.changeSelect(limit: query.limit)), arguments: sql.arguments)
            defer { cursor.finish() }
            while try cursor.next() { try body(change(cursor, decoder: decoder)) }
        }
    }

    /// Calls `body` with each transaction matching `query` and a stream of its
    /// changes (only those matching the query's entity and type filters),
    /// decoded one at a time as `body` reads them: a transaction of a million
    /// changes is never held in memory.
    func forEachTransactionWithChanges(
        _ query: HistoryQuery, decoder: ChangeDecoder,
        _ body: (Transaction, ChangeStream) throws -> Void
    ) throws {
        try read { db in
            let sql = try historySQL(query, in: db)
            let rows = ChangeRows(store: self, decoder: decoder)
            if sql.scansObjects, query.order == .ascending {
                return try walkObjectTransactions(sql, limit: query.limit, withChanges: true, db) { read, changes in
                    guard let changes else { return }
                    let tx = try read()
                    try body(tx, ChangeStream(changes, transaction: tx.number, rows: rows))
                }
            }
            let changesStatement = try db.makeStatement(sql: sql.changesOfTransactionSelect())
            let names = try TransactionNames(sql, db)
            let cursor = try RawCursor(
                db.makeStatement(sql: sql.transactionSelect(limit: query.limit)), arguments: sql.arguments)
            defer { cursor.finish() }
            while try cursor.next() {
                let tx = try transaction(cursor, names: names)
                let changes = try changeStream(of: tx.number, sql: sql, statement: changesStatement, rows: rows)
                defer { changes.finish() }
                try body(tx, changes)
            }
        }
    }

    /// The changes of transaction `number` that `sql` selects, read with `statement`
    /// (its ``HistorySQL/changesOfTransactionSelect()``).
    func changeStream(of number: Int64, sql: HistorySQL, statement: Statement, rows: ChangeRows?) throws -> ChangeStream
    {
        ChangeStream(
            cursor: try RawCursor(statement, arguments: sql.changesOfTransactionArguments(number)),
            keep: sql.matchedChanges, rows: rows)
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

    /// The transaction of a ``HistorySQL/transactionSelect(limit:numbered:counted:)`` row, with
    /// its names from `names` (the read's); `changeCount` when the select did not count them.
    package func transaction(_ row: RawCursor, changeCount: Int? = nil, names: TransactionNames) throws -> Transaction {
        let number = row.int64(0)
        var warnings: [DecodingWarning] = []
        var found: String?
        // The column's name is only built when there is something to report (this runs per transaction).
        func check(_ column: @autoclosure () -> String, expected: String) {
            guard let value = found else { return }
            warnings.append(
                .wrongType(
                    table: "ATRANSACTION", rowID: number, column: column(), found: value, expected: expected,
                    readAs: "null"))
            found = nil
        }
        let timestamp = row.number(1, problem: &found)
        check("ZTIMESTAMP", expected: "a number")
        if let t = timestamp, !Transaction.datedTimestamps.contains(t) {
            let what = t.isFinite ? "\(t) s lies outside the years 1–9999" : "is \(t > 0 ? "+" : "-")infinity"
            warnings.append(
                DecodingWarning(
                    kind: .timestampOutOfRange,
                    message: "ATRANSACTION Z_PK \(number): ZTIMESTAMP \(what); no date expresses it",
                    column: "ZTIMESTAMP"))
        }
        /// The name in `column` (2…5); its string reference is in `column + 5`.
        func name(_ column: Int32, _ field: String, reference: String) throws -> String? {
            let number = row.integer(column + 5, problem: &found)
            check(reference, expected: "an integer (a string reference)")
            let value = try names.name(Int(column) - 2, in: row, column: column, reference: number, problem: &found)
            check("the \(field)", expected: "text")
            return value
        }
        return Transaction(
            number: number, timestamp: timestamp, author: try name(2, "author", reference: "ZAUTHORTS"),
            contextName: try name(3, "context name", reference: "ZCONTEXTNAMETS"),
            bundleID: try name(4, "bundle ID", reference: "ZBUNDLEIDTS"),
            processID: try name(5, "process ID", reference: "ZPROCESSIDTS"), storeUUID: storeUUID,
            queryGenerationLength: row.optionalInt64(6).map { Int($0) }, changeCount: changeCount ?? Int(row.int64(11)),
            warnings: warnings)
    }

    /// The row of ``transaction(_:changeCount:names:)`` in place when it reads without a
    /// warning, with a dated timestamp, and names by reference (``TransactionNames/places(in:)``); nil otherwise.
    func plainTransaction(_ row: RawCursor, changeCount: Int? = nil, names: TransactionNames) throws
        -> PlainTransaction?
    {
        switch row.storageClass(1) {
        case .integer, .real: break
        case .null, .text, .blob: return nil
        }
        let timestamp = row.double(1)
        guard Transaction.datedTimestamps.contains(timestamp), row.storageClass(0) == .integer,
            changeCount != nil || row.storageClass(11) == .integer, let places = try names.places(in: row)
        else { return nil }
        return PlainTransaction(
            number: row.int64(0), timestamp: timestamp, names: places,
            queryGenerationLength: row.optionalInt64(6).map { Int($0) },
            changeCount: changeCount ?? Int(row.int64(11)), table: names)
    }

    func change(_ row: RawCursor, decoder: ChangeDecoder) -> Change {
        let changeID = row.int64(0)
        var warnings: [DecodingWarning] = []
        /// An INTEGER column Core Data always fills; anything else (NULL too)
        /// is reported and read as SQLite converts it.
        func required(_ column: Int32, _ name: String) -> Int64 {
            var found: String?
            if let value = row.integer(column, problem: &found) { return value }
            let converted = row.int64(column)
            warnings.append(
                .wrongType(
                    table: "ACHANGE", rowID: changeID, column: name, found: found ?? "NULL",
                    expected: "an integer", readAs: String(converted)))
            return converted
        }
        let transactionNumber = required(1, "ZTRANSACTIONID")
        // A change type that is not an integer is unknown, never SQLite's 0 (insert).
        var found: String?
        let changeType = row.integer(2, problem: &found)
        if changeType == nil {
            warnings.append(
                .wrongType(
                    table: "ACHANGE", rowID: changeID, column: "ZCHANGETYPE", found: found ?? "NULL",
                    expected: "an integer", readAs: "unknown(-1)"))
        }
        let entityNumber = required(3, "ZENTITY")
        let entityPK = required(4, "ZENTITYPK")
        var columns: [UInt8]?
        switch row.storageClass(5) {
        case .blob: columns = row.optionalBytes(5)
        case .null: columns = nil
        case .integer, .real, .text:
            warnings.append(
                .wrongType(
                    table: "ACHANGE", rowID: changeID, column: "ZCOLUMNS", found: row.describe(5),
                    expected: "a BLOB", readAs: "null"))
        }
        var tombstones: [StoredValue?] = []
        tombstones.reserveCapacity(decoder.tombstoneColumnCount)
        for i in 0..<decoder.tombstoneColumnCount {
            tombstones.append(row.value(Int32(HistorySQL.changeFixedColumnCount + i)))
        }
        return decoder.decode(
            changeID: changeID, transactionNumber: transactionNumber,
            changeTypeRaw: changeType ?? -1, entityNumber: entityNumber, entityPK: entityPK,
            columns: columns, tombstones: tombstones, warnings: warnings)
    }
}
