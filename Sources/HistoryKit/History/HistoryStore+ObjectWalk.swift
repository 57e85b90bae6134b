import GRDB

/// The transactions of an object filter that matched more changes than a list holds (an
/// object changed in a large share of all transactions): the matching changes in one scan of
/// `ACHANGE`, ordered by transaction, and their transactions by a walk down `ATRANSACTION`
/// beside them, instead of a search of every transaction for the object and a select of its
/// changes per transaction.
extension HistoryStore {
    /// Transactions numbered this far ahead of the walk are sought, not stepped to.
    static let objectWalkSeek: Int64 = 256

    /// Calls `body` with each transaction of `sql` (``HistorySQL/scansObjects``), ascending, as a
    /// function that reads it (with its change count: a caller that only counts reads nothing), and
    /// the rows of its matching changes (nil when `withChanges` is false), at most `limit`
    /// transactions. Changes whose transaction is not there or does not match are passed over.
    func walkObjectTransactions(_ sql: HistorySQL, limit: Int?, withChanges: Bool, _ db: Database,
                                _ body: (_ transaction: () throws -> Transaction, _ changes: TransactionOrderedRows?) throws -> Void) throws {
        let select = try db.makeStatement(sql: sql.scannedChangesSelect(whole: withChanges))
        let changes = TransactionOrderedRows(try RawCursor(select, arguments: sql.changeFilterArguments), numberColumn: 1)
        defer { changes.finish() }
        let walkStatement = try db.makeStatement(sql: sql.transactionWalkSelect())
        let counts = try db.makeStatement(sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID = ?")
        let names = try TransactionNames(sql, db)
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
            if walk == nil || (at.map { next > $0 && UInt64(bitPattern: next &- $0) > UInt64(Self.objectWalkSeek) } ?? false) {
                walk?.finish()
                walk = try RawCursor(walkStatement, arguments: sql.transactionWalkArguments(from: next))
                try step()
            }
            while let current = at, current < next { try step() }
            // The walk has passed every transaction there is: no later change has one.
            guard let current = at, let walk else { break }
            guard current == next else { continue }
            try body({
                let count = try RawCursor(counts, arguments: [next])
                defer { count.finish() }
                return try transaction(walk, changeCount: try count.next() ? Int(count.int64(0)) : 0, names: names)
            }, withChanges ? changes : nil)
            handed += 1
            if let limit, handed >= limit { break }
        }
    }
}
