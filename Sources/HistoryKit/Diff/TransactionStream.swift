import GRDB

/// A query's transactions read one at a time, each followed by its changes
/// one at a time: the pull side of ``HistoryStore/forEachTransactionWithChanges(_:decoder:_:)``,
/// so that two stores can be read in step. Valid only inside the read of
/// `db` it was made in.
final class TransactionStream {
    private let store: HistoryStore
    private let rows: ChangeRows
    /// The query as SQL (its object matches included).
    let sql: HistorySQL
    private let transactions: RawCursor
    private let changesStatement: Statement
    private let names: TransactionNames
    private var changes: ChangeStream?

    init(_ store: HistoryStore, query: HistoryQuery, decoder: ChangeDecoder, db: Database) throws {
        var query = query
        query.limit = nil
        query.order = .ascending
        self.store = store
        rows = ChangeRows(store: store, decoder: decoder)
        sql = try store.historySQL(query, in: db)
        changesStatement = try db.makeStatement(sql: sql.changesOfTransactionSelect())
        names = try TransactionNames(sql, db)
        transactions = try RawCursor(db.makeStatement(sql: sql.transactionSelect(limit: nil)), arguments: sql.arguments)
    }

    /// The next transaction (its changes follow from ``nextChange()``); nil at the end.
    func next() throws -> Transaction? {
        changes?.finish()
        changes = nil
        guard try transactions.next() else { return nil }
        let tx = try store.transaction(transactions, names: names)
        changes = try store.changeStream(of: tx.number, sql: sql, statement: changesStatement, rows: rows)
        return tx
    }

    /// The next change of the current transaction; nil after its last.
    func nextChange() throws -> Change? { try changes?.next() }

    func finish() {
        changes?.finish()
        transactions.finish()
    }
}
