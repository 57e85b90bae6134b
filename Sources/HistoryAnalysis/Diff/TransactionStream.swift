import GRDB
import HistoryReading

/// A query's transactions numbered within one range, read one at a time, each followed
/// by its change rows one at a time, in place: one side of two stores read in step.
/// Valid only inside the read of the connection its statements were prepared on.
final class TransactionStream {
    /// One side's statements, prepared once per connection and used for range after range.
    struct Statements {
        fileprivate let transactions: Statement
        fileprivate let changes: Statement
        /// ``HistorySQL/nameLookup`` when the query looks names up.
        fileprivate let names: Statement?

        /// `store`'s statements of `sql` on `db` (an SQLite error names the store).
        init(_ store: HistoryStore, _ sql: HistorySQL, _ db: Database) throws {
            do {
                transactions = try db.makeStatement(
                    sql: sql.transactionSelect(limit: nil, numbered: true, counted: false))
                changes = try db.makeStatement(
                    sql: sql.selectsNumberRange ? sql.changesOfTransactionsSelect() : sql.changesOfTransactionSelect())
                names = sql.looksUpNames ? try db.makeStatement(sql: HistorySQL.nameLookup) : nil
            } catch {
                throw store.connection.storeError(error)
            }
        }
    }

    private let store: HistoryStore
    private let sql: HistorySQL
    private let statements: Statements
    private let transactions: RawCursor
    private let names: TransactionNames
    /// The range's change rows in transaction order, when the query selects whole transactions;
    /// else a select per transaction.
    private let walk: TransactionOrderedRows?
    private var perTransaction: RawCursor?
    private var current: Int64 = 0

    /// The transactions of `sql` numbered in `numbers` (their change counts are left at 0).
    init(_ store: HistoryStore, sql: HistorySQL, statements: Statements, numbers: ClosedRange<Int64>) throws {
        self.store = store
        self.sql = sql
        self.statements = statements
        do {
            transactions = try RawCursor(
                statements.transactions, arguments: sql.arguments + [numbers.lowerBound, numbers.upperBound])
            walk =
                sql.selectsNumberRange
                ? TransactionOrderedRows(
                    try RawCursor(statements.changes, arguments: [numbers.lowerBound, numbers.upperBound]),
                    numberColumn: 1)
                : nil
        } catch {
            throw store.connection.storeError(error)
        }
        names = TransactionNames(sql, lookup: statements.names)
    }

    /// The next transaction (its change rows follow from ``nextRow()``); nil at the end.
    func next() throws -> Transaction? {
        do {
            perTransaction?.finish()
            perTransaction = nil
            guard try transactions.next() else { return nil }
            let tx = try store.transaction(transactions, names: names)
            current = tx.number
            if walk == nil {
                perTransaction = try RawCursor(
                    statements.changes, arguments: sql.changesOfTransactionArguments(tx.number))
            }
            return tx
        } catch {
            throw store.connection.storeError(error)
        }
    }

    /// The cursor on the current transaction's next change row (columns as ``HistorySQL``'s
    /// change selects give them), valid until the next call; nil after its last.
    func nextRow() throws -> RawCursor? {
        do {
            if let walk { return try walk.next(of: current) ? walk.cursor : nil }
            guard let cursor = perTransaction else { return nil }
            while try cursor.next() {
                if sql.matchedChanges?.contains(cursor.int64(0)) ?? true { return cursor }
            }
            return nil
        } catch {
            throw store.connection.storeError(error)
        }
    }

    func finish() {
        perTransaction?.finish()
        walk?.finish()
        transactions.finish()
    }
}
