import GRDB

/// The transaction of a change, as a read of changes with their transactions hands it out
/// (``ChangeChunk/forEach(withTransactions:decoded:)``).
public enum ChangeTransaction {
    /// Read in place: valid only inside the call that hands it out.
    case plain(PlainTransaction)
    /// One that does not read as a ``PlainTransaction``, or any transaction of a read in one go.
    case decoded(Transaction)
    /// No transaction has the change's number (an orphan change).
    case gone

    /// The transaction, decoded; nil when it is gone.
    public func transaction(storeUUID: String) -> Transaction? {
        switch self {
        case .plain(let tx): tx.transaction(storeUUID: storeUUID)
        case .decoded(let tx): tx
        case .gone: nil
        }
    }
}

/// The transactions of a chunk of changes (consecutive transaction numbers), read beside the
/// changes in number order on the chunk's connection, with their change counts from the
/// index: one read of each instead of a lookup per change.
final class ChunkTransactions {
    /// What a chunk's connection prepares once for all of its chunks.
    struct Statements {
        let sql: HistorySQL
        /// ``HistorySQL/transactionsInRangeSelect()``.
        let transactions: Statement
        /// ``ChangeCounts/select``.
        let counts: Statement
        /// ``HistorySQL/nameLookup`` when the select leaves names to look up.
        let names: Statement?

        init(_ sql: HistorySQL, _ db: Database) throws {
            self.sql = sql
            transactions = try db.makeStatement(sql: sql.transactionsInRangeSelect())
            counts = try db.makeStatement(sql: ChangeCounts.select)
            names = sql.looksUpNames ? try db.makeStatement(sql: HistorySQL.nameLookup) : nil
        }
    }

    private let store: HistoryStore
    private let rows: TransactionOrderedRows
    private let counts: ChangeCounts
    private let names: TransactionNames
    /// The transaction handed out last, by number (a transaction's changes come together).
    private var last: (number: Int64, transaction: ChangeTransaction)?

    /// The transactions numbered `numbers`.
    init(_ statements: Statements, numbers: ClosedRange<Int64>, store: HistoryStore) throws {
        self.store = store
        rows = TransactionOrderedRows(
            try RawCursor(statements.transactions, arguments: [numbers.lowerBound, numbers.upperBound]),
            numberColumn: 0)
        counts = try ChangeCounts(statements.counts, range: numbers)
        names = TransactionNames(statements.sql, lookup: statements.names)
    }

    /// Transaction `number`; numbers must come in ascending order (as a chunk's changes do).
    func transaction(of number: Int64) throws -> ChangeTransaction {
        if let last, last.number == number { return last.transaction }
        var found = ChangeTransaction.gone
        if try rows.next(of: number) {
            let count = try counts.count(of: number)
            if let tx = try store.plainTransaction(rows.cursor, changeCount: count, names: names) {
                found = .plain(tx)
            } else {
                found = .decoded(try store.transaction(rows.cursor, changeCount: count, names: names))
            }
        }
        last = (number, found)
        return found
    }

    func finish() {
        rows.finish()
        counts.finish()
    }
}
