import Foundation
import GRDB

/// Counts, ranges and space usage of a store's history.
public struct HistoryStatistics: Equatable, Sendable {
    public var transactionCount: Int
    public var changeCount: Int
    /// Rows of `ATRANSACTIONSTRING`.
    public var stringCount: Int
    /// Lowest and highest transaction numbers present.
    public var transactionNumbers: ClosedRange<Int64>?
    /// Earliest and latest numeric `ZTIMESTAMP` (Cocoa seconds).
    public var timestamps: ClosedRange<Double>?
    /// Transactions whose `ZTIMESTAMP` is TEXT or a BLOB, not a number (left out of ``timestamps``).
    public var unreadableTimestampCount: Int
    /// Changes by type; nil unless counted (that reads every change).
    public var insertCount: Int?
    public var updateCount: Int?
    public var deleteCount: Int?
    /// Changes whose `ZCHANGETYPE` is none of those (another number, NULL, not an integer); nil unless counted.
    public var otherTypeCount: Int?
    /// Changes whose transaction does not exist.
    public var orphanChangeCount: Int
    public var purgeTraces: PurgeTraces
    public var space: SpaceUsage
}

/// What is left behind when history was purged (nothing records a purge).
public struct PurgeTraces: Equatable, Sendable {
    /// The lowest transaction number is above 1.
    public var startsAfterFirst: Bool
    /// `Z_MAX` of `TRANSACTION` in `Z_PRIMARYKEY`.
    public var transactionHighWaterMark: Int64?
    /// `Z_MAX` is above the highest transaction present (the newest were deleted).
    public var highWaterMarkAboveLast: Bool
    /// Transaction numbers missing between the lowest and the highest.
    public var transactionGaps: Int64
    /// The author of the first remaining transaction when history starts after #1 and that
    /// transaction is Core Data's schema migration: a migration that removed entities history
    /// named truncates history before it.
    public var migrationAtCut: String? = nil

    /// Whether any trace of a purge is present.
    public var anyTrace: Bool { startsAfterFirst || highWaterMarkAboveLast || transactionGaps > 0 }
}

/// How the store's bytes are used.
public struct SpaceUsage: Equatable, Sendable {
    /// How ``tables`` was measured.
    public enum Method: String, Equatable, Sendable {
        /// Exact page counts from SQLite's `dbstat` virtual table.
        case dbstat
        /// Estimated from the size of the stored values (the SQLite build has no `dbstat`).
        case estimate
    }

    /// Bytes of one history table with its indexes.
    public struct Table: Equatable, Sendable {
        public var name: String
        public var pages: Int64
        public var bytes: Int64
    }

    public var method: Method
    public var pageSize: Int64
    public var pageCount: Int64
    public var freelistCount: Int64
    /// `ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING` (those present).
    public var tables: [Table]

    /// Bytes used by the three history tables together.
    public var historyBytes: Int64 { tables.reduce(0) { $0 + $1.bytes } }
    /// Bytes of the database as SQLite sees it (main file plus WAL content).
    public var databaseBytes: Int64 { pageSize * pageCount }
}

extension HistoryStore {
    private static let historyTables = ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"]

    /// The number of transactions (cheap: no other statistics).
    public func transactionCount() throws -> Int {
        try read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? 0 }
    }

    /// The number of transactions `query` selects (at most its limit), or nil when only
    /// reading changes would tell (an entity, type or object filter): a total for progress.
    public func transactionCount(_ query: HistoryQuery) throws -> Int? {
        guard query.entities.isEmpty, query.changeTypes.isEmpty, query.objects.isEmpty else { return nil }
        let count = try read { db in
            let sql = try historySQL(query, in: db)
            return try db.firstRow(sql.transactionCount(), arguments: sql.arguments) { Int($0.int64(0)) } ?? 0
        }
        return query.limit.map { min(max($0, 0), count) } ?? count
    }

    /// Reads counts, ranges, purge traces and space usage, through indexes only
    /// (a fraction of a second on ten million changes); `countingChangeTypes`
    /// adds the counts by change type, which reads every change.
    public func statistics(countingChangeTypes: Bool = false) throws -> HistoryStatistics {
        try read { db in
            var byType: [Int64?: Int]?
            if countingChangeTypes {
                var counts: [Int64?: Int] = [:]
                var ignored: String?
                try db.forEachRow("SELECT ZCHANGETYPE, COUNT(*) FROM ACHANGE GROUP BY ZCHANGETYPE") {
                    counts[$0.integer(0, problem: &ignored), default: 0] += Int($0.int64(1))
                }
                byType = counts
            }
            return try statistics(db, byType: byType)
        }
    }

    /// ``statistics(countingChangeTypes:)`` with the counts by change type of `tally`
    /// (``entityChangeCounts()``, read once for both, in a read of its own).
    public func statistics(changeTypes tally: EntityChangeTally) throws -> HistoryStatistics {
        let all = tally.byEntity.values.reduce(tally.withoutEntityNumber) { $0.adding($1) }
        return try read { db in try statistics(db, byType: [0: all.inserts, 1: all.updates, 2: all.deletes]) }
    }

    private func statistics(_ db: Database, byType: [Int64?: Int]?) throws -> HistoryStatistics {
        let (count, minPK, maxPK) =
            try db.firstRow("SELECT COUNT(*), MIN(Z_PK), MAX(Z_PK) FROM ATRANSACTION") {
                (Int($0.int64(0)), $0.optionalInt64(1), $0.optionalInt64(2))
            } ?? (0, nil, nil)
        let timestamps = try timestampRange(db)
        // TEXT and BLOB sort after every number: the timestamp index finds them.
        let unreadable =
            try db.firstRow("SELECT COUNT(*) FROM ATRANSACTION WHERE ZTIMESTAMP >= ''") { Int($0.int64(0)) } ?? 0
        let changeCount = try db.firstRow("SELECT COUNT(*) FROM ACHANGE") { Int($0.int64(0)) } ?? 0
        let orphans = try orphanChangeCount(
            db, numbers: minPK.flatMap { lo in maxPK.map { lo...max(lo, $0) } },
            transactionCount: count, changeCount: changeCount)
        let strings =
            schema.hasStringTable
            ? try db.firstRow("SELECT COUNT(*) FROM ATRANSACTIONSTRING") { Int($0.int64(0)) } ?? 0 : 0
        let highWater = catalog.historyMax("TRANSACTION")
        let traces = PurgeTraces(
            startsAfterFirst: (minPK ?? 1) > 1,
            transactionHighWaterMark: highWater,
            highWaterMarkAboveLast: highWater.map { $0 > (maxPK ?? 0) } ?? false,
            transactionGaps: minPK.flatMap { lo in maxPK.map { hi in Self.numberCount(lo...max(lo, hi)) - Int64(count) }
            } ?? 0)
        var traced = traces
        if traces.startsAfterFirst, let first = minPK, let author = try transaction(number: first)?.author,
            AuthorFamily.of(author) == .coreDataMigration
        {
            traced.migrationAtCut = author
        }
        let typed = byType.map { counts in [Int64(0), 1, 2].reduce(0) { $0 + (counts[$1] ?? 0) } }
        return HistoryStatistics(
            transactionCount: count, changeCount: changeCount, stringCount: strings,
            transactionNumbers: minPK.flatMap { lo in maxPK.map { lo...max(lo, $0) } },
            timestamps: timestamps, unreadableTimestampCount: unreadable,
            insertCount: byType.map { $0[0] ?? 0 }, updateCount: byType.map { $0[1] ?? 0 },
            deleteCount: byType.map { $0[2] ?? 0 },
            otherTypeCount: typed.map { max(0, changeCount - $0) },
            orphanChangeCount: orphans, purgeTraces: traced, space: try space(db))
    }

    /// Earliest and latest numeric `ZTIMESTAMP`, through the timestamp index.
    /// Numbers sort before TEXT and BLOB, so the lowest value is a number when
    /// any is, and the highest number is the highest value below `''`.
    private func timestampRange(_ db: Database) throws -> ClosedRange<Double>? {
        var ignored: String?
        let low = try db.firstRow("SELECT MIN(ZTIMESTAMP) FROM ATRANSACTION") { $0.number(0, problem: &ignored) } ?? nil
        let high =
            try db.firstRow("SELECT MAX(ZTIMESTAMP) FROM ATRANSACTION WHERE ZTIMESTAMP < ''") {
                $0.number(0, problem: &ignored)
            } ?? nil
        guard let low, let high else { return nil }
        return low...max(low, high)
    }

    /// How many numbers `range` spans, at most `Int64.max` (a damaged store's
    /// `Z_PK` can run from -2⁶³ to 2⁶³-1, whose span overflowed).
    static func numberCount(_ range: ClosedRange<Int64>) -> Int64 {
        let (span, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
        return overflow || span == .max ? .max : span + 1
    }

    /// Changes whose transaction does not exist, counted through the
    /// `ZTRANSACTIONID` index: those outside the range of transaction numbers,
    /// then those inside each gap of it (gaps are few unless purges skipped authors).
    private func orphanChangeCount(
        _ db: Database, numbers: ClosedRange<Int64>?, transactionCount: Int, changeCount: Int
    ) throws -> Int {
        guard let numbers else { return changeCount }
        var orphans =
            try db.firstRow(
                """
                SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID IS NULL OR ZTRANSACTIONID < ? OR ZTRANSACTIONID > ?
                """, arguments: [numbers.lowerBound, numbers.upperBound]
            ) { Int($0.int64(0)) } ?? 0
        guard Int64(transactionCount) < Self.numberCount(numbers) else { return orphans }
        let inGap = try db.makeStatement(
            sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID > ? AND ZTRANSACTIONID < ?")
        let cursor = try RawCursor(db.makeStatement(sql: "SELECT Z_PK FROM ATRANSACTION ORDER BY Z_PK"), arguments: [])
        defer { cursor.finish() }
        var previous: Int64?
        while try cursor.next() {
            let number = cursor.int64(0)
            // (Rowids out of order in a damaged table must not overflow previous + 1.)
            if let previous, case (let next, false) = previous.addingReportingOverflow(1), number > next {
                let gap = try RawCursor(inGap, arguments: [previous, number])
                if try gap.next() { orphans += Int(gap.int64(0)) }
                gap.finish()
            }
            previous = number
        }
        return orphans
    }

    package func space(_ db: Database) throws -> SpaceUsage {
        let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        let pageCount = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let freelist = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let present = Self.historyTables.filter { $0 != "ATRANSACTIONSTRING" || schema.hasStringTable }
        if let tables = try? dbstatUsage(db, tables: present) {
            return SpaceUsage(
                method: .dbstat, pageSize: pageSize, pageCount: pageCount, freelistCount: freelist, tables: tables)
        }
        var tables: [SpaceUsage.Table] = []
        for name in present {
            let columns = try db.columns(in: name).map { "COALESCE(length(\($0.name)), 0)" }.joined(separator: " + ")
            // Each row costs its values plus a record header and cell pointer; indexes roughly double small tables.
            let payload = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(\(columns) + 12), 0) FROM \(name)") ?? 0
            let indexes =
                try Int64.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ?",
                    arguments: [name]) ?? 0
            let rows = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(name)") ?? 0
            let bytes = payload + indexes * rows * 16
            let pages = (bytes + pageSize - 1) / pageSize
            tables.append(SpaceUsage.Table(name: name, pages: pages, bytes: pages * pageSize))
        }
        return SpaceUsage(
            method: .estimate, pageSize: pageSize, pageCount: pageCount, freelistCount: freelist, tables: tables)
    }

    /// Pages of each table and its indexes from `dbstat`; throws when the build lacks it.
    /// `aggregate = TRUE` sums each b-tree without decoding every page's cells.
    private func dbstatUsage(_ db: Database, tables: [String]) throws -> [SpaceUsage.Table] {
        let total = try db.makeStatement(sql: "SELECT pageno, pgsize FROM dbstat WHERE name = ? AND aggregate = TRUE")
        var result: [SpaceUsage.Table] = []
        for name in tables {
            var pages: Int64 = 0
            var bytes: Int64 = 0
            for btree in try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE tbl_name = ? AND type IN ('table', 'index') AND rootpage > 0",
                arguments: [name])
            {
                let cursor = try RawCursor(total, arguments: [btree])
                if try cursor.next() {
                    pages += cursor.int64(0)
                    bytes += cursor.int64(1)
                }
                cursor.finish()
            }
            result.append(SpaceUsage.Table(name: name, pages: pages, bytes: bytes))
        }
        return result
    }
}

/// Rows of one history column holding TEXT or a BLOB where Core Data writes numbers.
public struct MisTypedColumn: Equatable, Sendable {
    /// `TABLE.COLUMN`.
    public var column: String
    public var rows: Int
}

extension HistoryStore {
    /// The indexed number columns of the history tables that hold TEXT or a
    /// BLOB in some rows, counted through their indexes (SQLite orders TEXT
    /// and BLOB after every number), so it costs next to nothing on millions
    /// of rows. A REAL or NULL where an integer belongs, or a column without
    /// an index, is found only as rows are read (and reported then).
    public func misTypedColumns() throws -> [MisTypedColumn] {
        let columns =
            [("ATRANSACTION", "ZTIMESTAMP")]
            + ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"].filter {
                schema.transactionColumns.contains($0)
            }.map { ("ATRANSACTION", $0) }
            + [("ACHANGE", "ZTRANSACTIONID")]
        return try read { db in
            try columns.compactMap { table, column in
                let rows =
                    try db.firstRow("SELECT COUNT(*) FROM \(table) WHERE \(column) >= ''") { Int($0.int64(0)) } ?? 0
                return rows > 0 ? MisTypedColumn(column: "\(table).\(column)", rows: rows) : nil
            }
        }
    }
}
