import GRDB

/// The transactions of a query with change conditions read beside its matching changes: the
/// changes in one read ordered by transaction (for an object filter that matched more changes
/// than a list holds, one scan of `ACHANGE`; for a chunk of a read in chunks, a walk of the
/// index on `ZTRANSACTIONID` over the chunk's numbers), and their transactions by a walk down
/// `ATRANSACTION` beside them, instead of a search of every transaction for a matching change
/// and a select of its changes per transaction.
extension HistoryStore {
    /// Transactions numbered this far ahead of the walk are sought, not stepped to.
    static let objectWalkSeek: Int64 = 256

    /// Calls `body` with each transaction of `sql` (``HistorySQL/scansObjects``), ascending, as a
    /// function that reads it (with its change count: a caller that only counts reads nothing), and
    /// the rows of its matching changes (nil when `withChanges` is false), at most `limit`
    /// transactions. Changes whose transaction is not there or does not match are passed over.
    func walkObjectTransactions(
        _ sql: HistorySQL, limit: Int?, withChanges: Bool, _ db: Database,
        _ body: (_ transaction: () throws -> Transaction, _ changes: TransactionOrderedRows?) throws -> Void
    ) throws {
        let select = try db.makeStatement(sql: sql.scannedChangesSelect(whole: withChanges))
        let changes = TransactionOrderedRows(
            try RawCursor(select, arguments: sql.changeFilterArguments), numberColumn: 1)
        defer { changes.finish() }
        let counts = try ChangeCounts(
            db.makeStatement(sql: ChangeCounts.select), range: Int64.min...Int64.max, seek: ChangeCounts.seekDistance)
        defer { counts.finish() }
        let names = try TransactionNames(sql, db)
        try walkTransactions(
            beside: changes, sql: sql, walk: try db.makeStatement(sql: sql.transactionWalkSelect()), limit: limit
        ) { walk, number in
            try body(
                { try transaction(walk, changeCount: try counts.count(of: number), names: names) },
                withChanges ? changes : nil)
        }
    }

    /// Calls `body` with the walk of ``HistorySQL/transactionWalkSelect()`` (`walk`) on each
    /// transaction that `changes` has rows of, ascending, with its number, at most `limit` times.
    /// Changes whose transaction is not there or does not match are passed over.
    func walkTransactions(
        beside changes: TransactionOrderedRows, sql: HistorySQL, walk statement: Statement, limit: Int?,
        _ body: (_ walk: RawCursor, _ number: Int64) throws -> Void
    ) throws {
        var walk: RawCursor?
        defer { walk?.finish() }
        /// The number of the walk's row; nil when the walk has ended.
        var at: Int64?
        func step() throws {
            at = try walk?.next() == true ? walk?.int64(0) : nil
        }
        var number: Int64?
        var handed = 0
        while let next = try changes.nextNumber(after: number) {
            number = next
            // In unsigned arithmetic: a damaged store's numbers may span all of Int64.
            if walk == nil
                || (at.map { next > $0 && UInt64(bitPattern: next &- $0) > UInt64(Self.objectWalkSeek) } ?? false)
            {
                walk?.finish()
                walk = try RawCursor(statement, arguments: sql.transactionWalkArguments(from: next))
                try step()
            }
            while let current = at, current < next { try step() }
            // The walk has passed every transaction there is: no later change has one.
            guard let current = at, let walk else { break }
            guard current == next else { continue }
            try body(walk, next)
            handed += 1
            if let limit, handed >= limit { break }
        }
    }
}
