import GRDB

/// What a purge would delete and what it would break, computed without
/// changing anything.
public struct PurgePreview: Sendable {
    /// Deleted transactions and changes per author (nil: no author), most first.
    public struct AuthorCount: Equatable, Sendable {
        public var author: String?
        public var transactions: Int
        public var changes: Int
    }

    /// Deleted changes per entity and type.
    public struct EntityCount: Equatable, Sendable {
        public var entity: String?
        public var entityNumber: Int64
        public var counts: EntityChangeCounts
    }

    /// An actor the purge would break.
    public struct Consequence: Equatable, Sendable {
        public var actor: String
        /// `expired` or `missed-changes`.
        public var status: ActorStatus
        public var message: String
    }

    /// The query selecting the transactions to delete (`before` plus filters).
    public var query: HistoryQuery
    public var transactionCount: Int
    public var changeCount: Int
    public var byAuthor: [AuthorCount]
    public var byEntity: [EntityCount]
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
    /// Actors that would become `expired` or `missed-changes`.
    public var consequences: [Consequence]
}

extension HistoryStore {
    /// Computes what deleting the transactions matching `query` would do.
    /// `actors` (from ``MergeStateAnalyzer``) are checked for breakage.
    public func previewPurge(_ query: HistoryQuery, actors: [ActorReport] = []) throws -> PurgePreview {
        guard query.entities.isEmpty, query.changeTypes.isEmpty else {
            throw QueryError.invalidPurgeFilter
        }
        var q = query
        q.limit = nil
        let sql = try HistorySQL(store: self, query: q)
        let stats = try statistics()
        let authorExpr = sql.expression(for: .author)
        let matching = sql.matchingNumbers()
        let args = sql.arguments
        var preview = try read { db -> PurgePreview in
            let range = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), MIN(t.Z_PK), MAX(t.Z_PK), MIN(t.ZTIMESTAMP), MAX(t.ZTIMESTAMP) FROM ATRANSACTION t
                WHERE t.Z_PK IN (\(matching))
                """, arguments: args)
            let count: Int = range?[0] ?? 0
            let changes = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID IN (\(matching))", arguments: args) ?? 0
            let byAuthor = try Row.fetchAll(db, sql: """
                SELECT \(authorExpr) AS author, COUNT(*), SUM((SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID = t.Z_PK))
                FROM ATRANSACTION t\(sql.joinClause) WHERE t.Z_PK IN (\(matching)) GROUP BY author ORDER BY COUNT(*) DESC, author
                """, arguments: args).map { PurgePreview.AuthorCount(author: $0[0], transactions: $0[1] ?? 0, changes: $0[2] ?? 0) }
            var entityCounts: [Int64: EntityChangeCounts] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT c.ZENTITY, c.ZCHANGETYPE, COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID IN (\(matching)) GROUP BY 1, 2
                """, arguments: args) {
                var counts = entityCounts[row[0] ?? 0] ?? EntityChangeCounts()
                let n: Int = row[2] ?? 0
                switch ChangeType(rawValue: row[1] ?? -1) {
                case .insert: counts.inserts += n
                case .update: counts.updates += n
                case .delete: counts.deletes += n
                case .unknown: counts.other += n
                }
                entityCounts[row[0] ?? 0] = counts
            }
            var unused: [String] = []
            var alreadyUnused = 0
            if schema.hasStringTable {
                let refs = ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"].filter { schema.transactionColumns.contains($0) }
                let refsOf = { (condition: String) in
                    refs.map { "SELECT t.\($0) FROM ATRANSACTION t WHERE t.\($0) IS NOT NULL AND \(condition)" }.joined(separator: " UNION ")
                }
                if !refs.isEmpty {
                    unused = try String.fetchAll(db, sql: """
                        SELECT s.ZNAME FROM ATRANSACTIONSTRING s
                        WHERE s.Z_PK IN (\(refsOf("t.Z_PK IN (\(matching))"))) AND s.Z_PK NOT IN (\(refsOf("t.Z_PK NOT IN (\(matching))")))
                        ORDER BY s.ZNAME
                        """, arguments: refs.map { _ in args }.reduce(StatementArguments(), +) + refs.map { _ in args }.reduce(StatementArguments(), +))
                    alreadyUnused = try Int.fetchOne(db, sql: """
                        SELECT COUNT(*) FROM ATRANSACTIONSTRING s WHERE s.Z_PK NOT IN (\(refsOf("1")))
                        """) ?? 0
                }
            }
            let cloudKit = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM ATRANSACTION t\(sql.joinClause) WHERE t.Z_PK IN (\(matching)) AND \(authorExpr) LIKE 'NSCloudKitMirroringDelegate%'
                """, arguments: args) ?? 0
            return PurgePreview(
                query: q, transactionCount: count, changeCount: changes, byAuthor: byAuthor,
                byEntity: entityCounts.keys.sorted().map { n in
                    PurgePreview.EntityCount(entity: catalog.entity(number: n)?.name, entityNumber: n, counts: entityCounts[n] ?? EntityChangeCounts())
                },
                numbers: (range?[1] as Int64?).flatMap { lo in (range?[2] as Int64?).map { lo...$0 } },
                timestamps: (range?[3] as Double?).flatMap { lo in (range?[4] as Double?).map { lo...max(lo, $0) } },
                survivingTransactions: stats.transactionCount - count, survivingChanges: stats.changeCount - changes,
                oldestSurvivor: nil, reclaimableBytes: 0, stringsBecomingUnused: unused, stringsAlreadyUnused: alreadyUnused,
                cloudKitTransactions: cloudKit, consequences: [])
        }
        // The oldest transaction outside the purge.
        preview.oldestSurvivor = try read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(t.Z_PK) FROM ATRANSACTION t WHERE t.Z_PK NOT IN (\(matching))", arguments: args)
        }.flatMap { try transaction(number: $0) }
        let tables = Dictionary(stats.space.tables.map { ($0.name, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        func share(_ part: Int, _ whole: Int) -> Double { whole > 0 ? Double(part) / Double(whole) : 0 }
        preview.reclaimableBytes = Int64(Double(tables["ATRANSACTION"] ?? 0) * share(preview.transactionCount, stats.transactionCount)
            + Double(tables["ACHANGE"] ?? 0) * share(preview.changeCount, stats.changeCount))
        preview.consequences = try consequences(of: preview, matching: matching, arguments: args, actors: actors)
        return preview
    }

    /// Actors the purge breaks: a token whose transaction goes expires; an
    /// actor loses changes it has not merged yet.
    private func consequences(of preview: PurgePreview, matching: String, arguments: StatementArguments,
                              actors: [ActorReport]) throws -> [PurgePreview.Consequence] {
        guard preview.transactionCount > 0 else { return [] }
        let authorExpr = try HistorySQL(store: self, query: HistoryQuery()).expression(for: .author)
        let joins = try HistorySQL(store: self, query: HistoryQuery()).joinClause
        var result: [PurgePreview.Consequence] = []
        for actor in actors where !actor.isBatch && !actor.status.isBroken {
            if let n = actor.tokenNumber {
                let goes = try read { try Bool.fetchOne($0, sql: "SELECT ? IN (\(matching))", arguments: [n] + arguments) ?? false }
                if goes {
                    result.append(.init(actor: actor.name, status: .expired,
                                        message: "its token names #\(n), which this purge deletes: Core Data will fail with 134301"))
                    continue
                }
            }
            let after: String
            let bound: DatabaseValueConvertible
            if let n = actor.tokenNumber {
                after = "t.Z_PK > ?"
                bound = n
            } else if let d = actor.positionDate {
                after = "t.ZTIMESTAMP > ?"
                bound = d + 1
            } else {
                continue
            }
            let unmerged = try read { db in
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM ATRANSACTION t\(joins) WHERE t.Z_PK IN (\(matching)) AND \(after)
                    AND (\(authorExpr) IS NULL OR \(authorExpr) != ?)
                    """, arguments: arguments + [bound, actor.name]) ?? 0
            }
            if unmerged > 0 {
                result.append(.init(actor: actor.name, status: .missedChanges,
                                    message: "the purge deletes \(unmerged) transactions it has not merged yet; it will never see them"))
            }
        }
        return result
    }
}
