import Foundation
import GRDB

/// Transactions by author after a position: what an actor still has to merge.
public struct PendingSummary: Sendable {
    /// Per author (nil for none), most transactions first.
    public var byAuthor: [(author: String?, count: Int)]
    /// The earliest pending transaction's timestamp (Cocoa seconds).
    public var oldestTimestamp: Double?
    /// The earliest pending transaction's number.
    public var oldestNumber: Int64?
    /// Transactions after the position that the actor wrote itself (for
    /// CloudKit's exporter: CloudKit's own authors), which it does not merge.
    public var ownCount: Int = 0
    /// Of those, the transactions it wrote after others' it had not merged, having written before
    /// them: it ran again and saved without merging (or without storing its position).
    public var ownAfterOthers: Int = 0
    /// For a position kept in whole seconds (an XML plist): transactions by others within
    /// the second after it, which may or may not be merged (not in ``count``).
    public var uncertainCount: Int = 0

    package init(
        byAuthor: [(author: String?, count: Int)], oldestTimestamp: Double?, oldestNumber: Int64?, ownCount: Int = 0,
        uncertainCount: Int = 0
    ) {
        self.byAuthor = byAuthor
        self.oldestTimestamp = oldestTimestamp
        self.oldestNumber = oldestNumber
        self.ownCount = ownCount
        self.uncertainCount = uncertainCount
    }

    /// All pending transactions (at least).
    public var count: Int { byAuthor.reduce(0) { $0 + $1.count } }
    /// With those that may be pending, for a position kept in whole seconds; nil otherwise.
    public var countAtMost: Int? { uncertainCount > 0 ? count + uncertainCount : nil }
}

/// The largest numbers a listing of the store can show (for column widths).
public struct NumberBounds: Sendable {
    public var transaction: Int64
    public var change: Int64
    /// The largest primary key `Z_PRIMARYKEY` has handed out.
    public var object: Int64

    public var transactionWidth: Int { String(transaction).count }
    public var changeWidth: Int { String(change).count }
    public var objectWidth: Int { String(object).count }
}

extension HistoryStore {
    /// The largest transaction and change numbers (rowids: instant) and object key.
    public func numberBounds() throws -> NumberBounds {
        let (tx, change) = try read { db in
            (
                try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0,
                try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ACHANGE") ?? 0
            )
        }
        return NumberBounds(transaction: tx, change: change, object: catalog.entities.map(\.max).max() ?? 0)
    }

    /// The number of transactions matching `query` (its limit and order are ignored).
    public func countTransactions(_ query: HistoryQuery) throws -> Int {
        var q = query
        q.limit = nil
        return try read { db in
            let sql = try historySQL(q, in: db)
            if sql.scansObjects {
                var count = 0
                try walkObjectTransactions(sql, limit: nil, withChanges: false, db) { _, _ in count += 1 }
                return count
            }
            return try Int.fetchOne(db, sql: sql.transactionCount(), arguments: sql.arguments) ?? 0
        }
    }

    /// Whether any transaction matches `query`: with change conditions, found from the changes
    /// in table order (the first match ends the scan), not counted.
    public func hasTransactions(_ query: HistoryQuery) throws -> Bool {
        try read { db in
            let sql = try HistorySQL(store: self, query: query)
            return try db.firstRow(sql.anyMatchSelect(), arguments: sql.arguments) { _ in true } ?? false
        }
    }

    /// How many transactions are numbered after `after` and up to `number` (by primary key).
    package func countTransactions(after: Int64 = .min, through number: Int64) throws -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM ATRANSACTION WHERE Z_PK > ? AND Z_PK <= ?", arguments: [after, number])
                ?? 0
        }
    }

    /// The lowest and highest `Z_PK` of `table`; nil when it is empty. (Each alone
    /// is one step down the b-tree; together in one SELECT, SQLite reads every row.)
    package static func numberRange(_ table: String, _ db: Database) throws -> (Int64, Int64)? {
        try db.firstRow("SELECT (SELECT MIN(Z_PK) FROM \(table)), (SELECT MAX(Z_PK) FROM \(table))") { row in
            row.isNull(0) || row.isNull(1) ? nil : (row.int64(0), row.int64(1))
        } ?? nil
    }

    /// `body` over the numbers `table` holds in this snapshot (rows committed later have higher
    /// numbers, so no part reads them), cut into one range per core, each read on its own
    /// connection, when they span at least `parallelFrom`; else over all of them at once. nil
    /// when the table is empty.
    func readInParts<T>(
        of table: String, _ db: Database, parallelFrom: Int64,
        _ body: @escaping (Database, ClosedRange<Int64>) throws -> T
    ) throws -> [T]? {
        guard let (first, last) = try Self.numberRange(table, db) else { return nil }
        let cores = Cores.usable
        let ranges = Self.split(first, last, parts: last &- first >= parallelFrom ? cores : 1)
        return try connection.readInParallel(ranges.count) { try body($0, ranges[$1]) }
    }

    /// The transaction number `bound` names: its own, or its token's for this store; nil for a
    /// date, a token of another store, or no bound.
    package func transactionNumber(of bound: HistoryQuery.Bound?) -> Int64? {
        switch bound {
        case .transaction(let n)?: return n
        case .token(let token)?: return token.transactionNumber(forStore: storeUUID)
        case .date?, nil: return nil
        }
    }

    /// The first transaction numbered `number` or higher, with its timestamp when it is a
    /// number; nil when there is none.
    package func firstTransaction(from number: Int64, _ db: Database) throws -> (number: Int64, timestamp: Double?)? {
        try db.firstRow(
            """
            SELECT Z_PK, CASE WHEN typeof(ZTIMESTAMP) IN ('integer', 'real') THEN ZTIMESTAMP END
            FROM ATRANSACTION WHERE Z_PK >= ? ORDER BY Z_PK LIMIT 1
            """, arguments: [number]
        ) { ($0.int64(0), $0.optionalDouble(1)) }
    }

    /// The transaction numbers `query` may select in this snapshot (its number and token
    /// bounds applied); nil when none.
    package func numberSpan(_ query: HistoryQuery, _ db: Database) throws -> ClosedRange<Int64>? {
        guard let (first, last) = try Self.numberRange("ATRANSACTION", db) else { return nil }
        var low = first
        var high = last
        if let after = transactionNumber(of: query.after) {
            guard after < .max else { return nil }
            low = max(low, after + 1)
        }
        if let before = transactionNumber(of: query.before) {
            guard before > .min else { return nil }
            high = min(high, before - 1)
        }
        return low <= high ? low...high : nil
    }

    /// `first...last` cut into at most `parts` consecutive ranges of about equal span, in order
    /// (in unsigned arithmetic: numbers may span all of Int64 in a damaged store).
    static func split(_ first: Int64, _ last: Int64, parts: Int) -> [ClosedRange<Int64>] {
        guard last > first, parts > 1 else { return [first...max(first, last)] }
        let span = UInt64(bitPattern: last &- first)
        let step = span / UInt64(parts) &+ 1
        var ranges: [ClosedRange<Int64>] = []
        var offset: UInt64 = 0
        while ranges.count < parts {
            let low = first &+ Int64(bitPattern: offset)
            let (end, overflow) = offset.addingReportingOverflow(step)
            if overflow || end > span || ranges.count == parts - 1 {
                ranges.append(low...last)
                break
            }
            ranges.append(low...(first &+ Int64(bitPattern: end &- 1)))
            offset = end
        }
        return ranges
    }

    /// The changes of the transactions after number `n` (through the `ZTRANSACTIONID` index).
    public func countChanges(afterTransaction n: Int64) throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID > ?", arguments: [n]) ?? 0
        }
    }

    /// The newest transaction with a timestamp at or before `date` (+ `tolerance` seconds).
    public func lastTransaction(atOrBefore date: Double, tolerance: Double = 0) throws -> Transaction? {
        // MAX through the timestamp index is instant; ORDER BY … LIMIT 1 would sort every earlier transaction.
        let number = try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?", arguments: [date + tolerance + 1e-6]
            )
        }
        return try number.flatMap { try transaction(number: $0) }
    }

    /// The oldest transaction present.
    public func firstTransaction() throws -> Transaction? {
        var found: Transaction?
        try forEachTransaction(HistoryQuery(limit: 1)) { found = $0 }
        return found
    }
}
