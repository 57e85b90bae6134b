import GRDB
import HistoryAnalysis
import HistoryReading

/// What a purge would delete and what it would break, computed without
/// changing anything.
public struct PurgePreview: Sendable {
    /// Deleted transactions and changes per author (nil: no author), most first.
    public struct AuthorCount: Equatable, Sendable {
        public var author: String?
        public var transactions: Int
        /// Nil unless the preview counted changes per author (`breakdown`).
        public var changes: Int?
    }

    /// Deleted changes per entity and type.
    public struct EntityCount: Equatable, Sendable {
        public var entity: String?
        /// `ZENTITY`; nil for changes whose `ZENTITY` is not an integer.
        public var entityNumber: Int64?
        public var counts: EntityChangeCounts
    }

    /// Where a purge's `before` bound falls among the transactions.
    public struct Cut: Equatable, Sendable {
        /// The bound's date, or for a transaction number the timestamp of the
        /// first transaction at or after it (nil when there is none).
        public var date: Double?
        /// The bound's number, or for a date the first transaction at or after
        /// it in time (nil when every transaction is older): `before tx:N` cuts there.
        public var transaction: Int64?
    }

    /// The query selecting the transactions to delete (`before` plus filters).
    public var query: HistoryQuery
    /// Where `query.before` cuts, whatever the name filters (nil without `before`).
    public var cut: Cut?
    public var transactionCount: Int
    public var changeCount: Int
    public var byAuthor: [AuthorCount]
    /// Nil unless the preview counted them (`breakdown`).
    public var byEntity: [EntityCount]?
    public var numbers: ClosedRange<Int64>?
    public var timestamps: ClosedRange<Double>?
    public var survivingTransactions: Int
    public var survivingChanges: Int
    /// The oldest transaction that survives (nil when none does).
    public var oldestSurvivor: Transaction?
    /// History-table bytes the purge frees inside the file (estimated from the
    /// share of rows deleted); the file shrinks only after VACUUM.
    public var reclaimableBytes: Int64
    /// Strings only deleted transactions use (they stay unless pruned).
    public var stringsBecomingUnused: [String]
    /// Strings no transaction uses even now.
    public var stringsAlreadyUnused: Int
    /// Deleted transactions written by CloudKit mirroring.
    public var cloudKitTransactions: Int
    /// Actors that would become `expired` or `missed-changes` (as `Breakage` decides).
    public var consequences: [Consequence]
    /// Readers no file shows, which deleting history may break (the Spotlight delegate); empty
    /// when nothing is deleted.
    public var hiddenReaders: [HiddenReader] = []
    /// The selected transactions as runs of consecutive numbers, when they
    /// form few enough (nil: too scattered); the purge deletes by these ranges.
    var ranges: [ClosedRange<Int64>]?
}

extension PurgePreview {
    /// Computes what deleting the transactions of `store` matching `query` would do, in
    /// one pass through the transactions plus index-only change counts.
    /// `actors` (from ``MergeStateAnalyzer``) are checked for breakage, and `readers`
    /// (``MergeStateAnalysis/hiddenReaders``) named when anything is deleted: no default, so a
    /// caller cannot forget them. `breakdown` also counts the deleted changes per author and per
    /// entity and type, which reads every deleted change (seconds on millions).
    public static func make(
        _ query: HistoryQuery, in store: HistoryStore, actors: [ActorReport], readers: [HiddenReader],
        breakdown: Bool = false
    ) throws -> PurgePreview {
        try PurgePreviewReading(store: store).previewPurge(
            query, actors: actors, readers: readers, breakdown: breakdown)
    }
}

/// The reads of `PurgePreview.make`, on one store.
private struct PurgePreviewReading {
    let store: HistoryStore

    func previewPurge(_ query: HistoryQuery, actors: [ActorReport], readers: [HiddenReader], breakdown: Bool)
        throws -> PurgePreview
    {
        guard query.entities.isEmpty, query.changeTypes.isEmpty, query.objects.isEmpty else {
            throw QueryError.invalidPurgeFilter
        }
        var q = query
        q.limit = nil
        let sql = try HistorySQL(store: store, query: q)
        // The scan, the breakdown and the oldest survivor read one snapshot.
        var preview = try store.snapshot { try previewPurge(q, sql: sql, actors: actors, breakdown: breakdown) }
        if preview.transactionCount > 0 { preview.hiddenReaders = readers }
        return preview
    }

    private func previewPurge(_ q: HistoryQuery, sql: HistorySQL, actors: [ActorReport], breakdown: Bool) throws
        -> PurgePreview
    {
        let matching = sql.matchingNumbers()
        let args = sql.arguments
        // Actors whose position the purge could break: a token it deletes, or others' transactions after the position.
        var breakage = Breakage(
            actors.filter { $0.hasBreakablePosition && !$0.status.isBroken }.compactMap(Breakage.Position.init))
        var survivor: Int64?
        // The bytes of the history tables come from reading every page of them (dbstat): on a second
        // connection while the transactions are scanned here.
        var (preview, space) = try store.read(
            { db -> PurgePreview in
                var deleted = AuthorTallies()
                var all = 0
                var numbers: ClosedRange<Int64>?
                var timestamps: ClosedRange<Double>?
                var deletedStrings = ReferenceSet()
                var survivingStrings = ReferenceSet()
                var runs = NumberRuns(limit: 10_000)
                var scan = try TransactionScan(store: store, db: db, query: q)
                try scan.run(db) { t in
                    all += 1
                    let refs = t.stringReferences
                    guard t.matches else {
                        if survivor == nil { survivor = t.number }
                        survivingStrings.insert(refs)
                        return
                    }
                    deleted.add(t)
                    // A damaged table can return rowids out of order: the range grows both ways.
                    numbers =
                        min(numbers?.lowerBound ?? t.number, t.number)...max(numbers?.upperBound ?? t.number, t.number)
                    if let ts = t.timestamp {
                        timestamps = min(timestamps?.lowerBound ?? ts, ts)...max(timestamps?.upperBound ?? ts, ts)
                    }
                    deletedStrings.insert(refs)
                    runs.add(t.number)
                    breakage.delete(t)
                }
                let names = scan.authorNames
                let byAuthor = deleted.sorted(names: names)
                let count = byAuthor.reduce(0) { $0 + $1.tally.count }
                var changes = 0
                if let ranges = runs.ranges {
                    let statement = try db.makeStatement(
                        sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ?")
                    for run in ranges {
                        let cursor = try RawCursor(statement, arguments: [run.lowerBound, run.upperBound])
                        if try cursor.next() { changes += Int(cursor.int64(0)) }
                        cursor.finish()
                    }
                } else {
                    changes =
                        try db.firstRow(
                            "SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID IN (\(matching))", arguments: args
                        ) { Int($0.int64(0)) } ?? 0
                }
                let allChanges = try db.firstRow("SELECT COUNT(*) FROM ACHANGE") { Int($0.int64(0)) } ?? 0
                return PurgePreview(
                    query: q, cut: try cut(db, before: q.before), transactionCount: count, changeCount: changes,
                    byAuthor: byAuthor.map {
                        PurgePreview.AuthorCount(author: $0.author, transactions: $0.tally.count, changes: nil)
                    },
                    byEntity: nil,
                    numbers: numbers, timestamps: timestamps,
                    survivingTransactions: all - count, survivingChanges: allChanges - changes,
                    oldestSurvivor: nil, reclaimableBytes: 0,
                    stringsBecomingUnused: deletedStrings.members.subtracting(survivingStrings.members).compactMap {
                        scan.string($0)
                    }
                    .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
                    stringsAlreadyUnused: scan.stringCount
                        - deletedStrings.members.union(survivingStrings.members)
                        .filter { scan.string($0) != nil }.count,
                    cloudKitTransactions: byAuthor.filter { AuthorFamily.of($0.author) == .cloudKit }.reduce(0) {
                        $0 + $1.tally.count
                    },
                    consequences: breakage.consequences(actors, authorNames: names), ranges: runs.ranges)
            }, beside: { db in try store.space(db) })
        if breakdown {
            try countChanges(
                of: &preview, matching: matching, arguments: args, authorExpression: sql.expression(for: .author),
                joins: sql.joinClause)
        }
        preview.oldestSurvivor = try survivor.flatMap { try store.transaction(number: $0) }
        let tables = Dictionary(space.tables.map { ($0.name, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        func share(_ part: Int, _ whole: Int) -> Double { whole > 0 ? Double(part) / Double(whole) : 0 }
        let transactions = preview.transactionCount + preview.survivingTransactions
        let changes = preview.changeCount + preview.survivingChanges
        preview.reclaimableBytes = Int64(
            Double(tables["ATRANSACTION"] ?? 0) * share(preview.transactionCount, transactions)
                + Double(tables["ACHANGE"] ?? 0) * share(preview.changeCount, changes))
        return preview
    }

    /// Where `before` falls: its date and the first transaction at or after it.
    private func cut(_ db: Database, before: HistoryQuery.Bound?) throws -> PurgePreview.Cut? {
        if case .date(let d)? = before {
            let at = try db.firstRow(
                "SELECT Z_PK FROM ATRANSACTION WHERE ZTIMESTAMP >= ? ORDER BY ZTIMESTAMP, Z_PK LIMIT 1", arguments: [d]
            ) { $0.int64(0) }
            return PurgePreview.Cut(date: d, transaction: at)
        }
        // Int64.min: a strategy that cuts nowhere.
        guard let number = store.transactionNumber(of: before), number > .min else { return nil }
        return PurgePreview.Cut(date: try store.firstTransaction(from: number, db)?.timestamp, transaction: number)
    }

    /// Deleted changes per author, and per entity and type (reads every deleted change).
    private func countChanges(
        of preview: inout PurgePreview, matching: String, arguments args: StatementArguments,
        authorExpression: String, joins: String
    ) throws {
        let (perAuthor, entityCounts) = try store.read { db -> ([String?: Int], EntityChangeTally) in
            var perAuthor: [String?: Int] = [:]
            try db.forEachRow(
                """
                SELECT \(authorExpression) AS author, SUM((SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID = \
                t.Z_PK))
                FROM ATRANSACTION t\(joins) WHERE t.Z_PK IN (\(matching)) GROUP BY author
                """, arguments: args
            ) { row in
                // As TransactionScan names authors: a BLOB is no author.
                var ignored: String?
                perAuthor[row.text(0, problem: &ignored), default: 0] += Int(row.int64(1))
            }
            let entityCounts = try store.entityChangeCounts(
                db, filter: "c.ZTRANSACTIONID IN (\(matching))", arguments: args)
            return (perAuthor, entityCounts)
        }
        for i in preview.byAuthor.indices { preview.byAuthor[i].changes = perAuthor[preview.byAuthor[i].author] ?? 0 }
        preview.byEntity = entityCounts.byEntity.keys.sorted().map { n in
            PurgePreview.EntityCount(
                entity: store.catalog.entity(number: n)?.name, entityNumber: n,
                counts: entityCounts.byEntity[n] ?? EntityChangeCounts())
        }
        if entityCounts.withoutEntityNumber.total > 0 {
            preview.byEntity?.append(
                PurgePreview.EntityCount(entity: nil, entityNumber: nil, counts: entityCounts.withoutEntityNumber))
        }
    }
}

/// Selected transaction numbers (ascending) gathered into runs of consecutive
/// numbers, so their changes are counted and deleted by index ranges; given
/// up (nil) past `limit` runs, when one `IN` query does better.
private struct NumberRuns {
    let limit: Int
    private(set) var ranges: [ClosedRange<Int64>]? = []

    mutating func add(_ n: Int64) {
        guard var r = ranges else { return }
        ranges = nil
        if let last = r.last, last.upperBound < .max, last.upperBound + 1 == n {
            r[r.count - 1] = last.lowerBound...n
        } else if r.count < limit {
            r.append(n...n)
        } else {
            return
        }
        ranges = r
    }
}
