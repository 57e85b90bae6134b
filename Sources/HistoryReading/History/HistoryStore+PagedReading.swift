import GRDB

/// Reads that hold no snapshot while the caller works: transactions and their
/// changes are read a page at a time, each page in a read of its own, and the
/// caller is handed a page's rows after its read has ended. A caller blocked on
/// its output (a pipe nobody reads) then holds nothing that stops an app from
/// checkpointing its WAL (`wal_checkpoint(TRUNCATE)` waits for every reader).
///
/// Each page sees the store as it is when read: transactions are never changed
/// once committed, so pages agree, except that a purge between two pages takes
/// what it deletes out of the pages still to come.
extension HistoryStore {
    /// Rows a page holds at most (transactions, or the changes of one transaction).
    public static let pageSize = 256
    /// Changes read ahead with a page of transactions at most (each transaction's first
    /// page of changes, so that most are handed out without another read).
    static let changesReadAhead = 4_096

    /// Calls `body` with each transaction matching `query`, oldest first, and a stream
    /// of its changes, as `forEachTransactionWithChanges` does, but with
    /// no read open while `body` runs. The query's limit and order are not used. Only a
    /// transaction of more than a page of changes reads its further pages while `body`
    /// runs, each in a read of its own.
    func forEachTransactionWithChangesInPages(
        _ query: HistoryQuery, decoder: ChangeDecoder, pageSize: Int = pageSize,
        _ body: (Transaction, ChangeStream) throws -> Void
    ) throws {
        var page = query
        page.order = .ascending
        page.limit = nil
        let size = max(pageSize, 1)
        let rows = ChangeRows(store: self, decoder: decoder)
        while true {
            let sql = try HistorySQL(store: self, query: page)
            let (entries, more) = try read { db -> ([(Transaction, ChangePages)], Bool) in
                let cursor = try RawCursor(
                    db.cachedStatement(sql: sql.transactionSelect(limit: size)), arguments: sql.arguments)
                defer { cursor.finish() }
                let names = try TransactionNames(sql, db)
                var entries: [(Transaction, ChangePages)] = []
                var readAhead = 0
                while readAhead < Self.changesReadAhead {
                    guard try cursor.next() else { return (entries, entries.count == size) }
                    let tx = try transaction(cursor, names: names)
                    let changes = ChangePages(store: self, sql: sql, transaction: tx.number, rows: rows, size: size)
                    readAhead += try changes.readPage(db)
                    entries.append((tx, changes))
                }
                return (entries, true)
            }
            for (tx, changes) in entries { try body(tx, ChangeStream(changes)) }
            guard more, let last = entries.last else { return }
            page.numberFloor = last.0.number
        }
    }
}

/// The changes of one transaction, read a page at a time, each page in a read
/// of its own (see ``HistoryStore/readTransactions(_:decoder:layout:_:)``, paged).
final class ChangePages {
    private let store: HistoryStore
    private let sql: HistorySQL
    private let number: Int64
    private let rows: ChangeRows
    private let size: Int
    private var page: [Change] = []
    private var index = 0
    /// The change ID the next page starts after (nil: the first page).
    private var after: Int64?
    private var done = false

    init(store: HistoryStore, sql: HistorySQL, transaction number: Int64, rows: ChangeRows, size: Int) {
        self.store = store
        self.sql = sql
        self.number = number
        self.rows = rows
        self.size = size
    }

    /// Reads the next page on `db` (in a read the caller holds); returns how many changes it holds.
    func readPage(_ db: Database) throws -> Int {
        let cursor = try RawCursor(
            db.cachedStatement(sql: sql.changesOfTransactionPageSelect(limit: size, after: after != nil)),
            arguments: sql.changesOfTransactionPageArguments(number, after: after))
        defer { cursor.finish() }
        page.removeAll(keepingCapacity: true)
        while try cursor.next() { page.append(rows.change(cursor)) }
        index = 0
        done = page.count < size
        after = page.last?.changeID ?? after
        return page.count
    }

    /// The next change; nil after the last.
    func next() throws -> Change? {
        if index == page.count {
            guard !done else { return nil }
            guard try store.read({ try readPage($0) }) > 0 else { return nil }
        }
        defer { index += 1 }
        return page[index]
    }
}
