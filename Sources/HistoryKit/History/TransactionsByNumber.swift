import GRDB

/// Transactions looked up by number, one at a time, inside one read: the select and the
/// name lookups are prepared once, so a lookup costs a step of an index, not a parse.
/// Valid only inside the read of the connection it was made on.
final class TransactionsByNumber {
    private let store: HistoryStore
    private let sql: HistorySQL
    private let select: Statement
    private let names: TransactionNames

    /// Lookups of `store`'s transactions on `db`.
    init(_ store: HistoryStore, _ db: Database) throws {
        self.store = store
        sql = try HistorySQL(store: store, query: HistoryQuery())
        select = try db.makeStatement(sql: sql.transactionSelect(limit: nil, numbered: true))
        names = try TransactionNames(sql, db)
    }

    /// Transaction `number` with its change count; nil when it is not there.
    func transaction(_ number: Int64) throws -> Transaction? {
        let cursor = try RawCursor(select, arguments: sql.arguments + [number, number])
        defer { cursor.finish() }
        guard try cursor.next() else { return nil }
        return try store.transaction(cursor, names: names)
    }
}
