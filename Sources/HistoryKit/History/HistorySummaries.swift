import GRDB

/// A string field of a transaction.
public enum TransactionField: String, CaseIterable, Sendable {
    case author, contextName, bundleID, processID
}

/// How often one value of a transaction field occurs.
public struct FieldSummary: Equatable, Sendable {
    /// The value; nil for transactions where the field is NULL.
    public var value: String?
    public var transactionCount: Int
    public var changeCount: Int
    /// Earliest and latest `ZTIMESTAMP` (Cocoa seconds) of its transactions.
    public var firstTimestamp: Double?
    public var lastTimestamp: Double?
    /// Lowest and highest transaction numbers.
    public var firstTransaction: Int64
    public var lastTransaction: Int64
}

/// Change counts of one entity, by type.
public struct EntityChangeCounts: Equatable, Sendable {
    public var inserts = 0
    public var updates = 0
    public var deletes = 0
    /// Changes of another `ZCHANGETYPE`.
    public var other = 0

    /// No changes yet.
    public init() {}

    /// All changes of the entity.
    public var total: Int { inserts + updates + deletes + other }
}

extension HistoryStore {
    /// Each distinct value of `field` with its transaction and change counts and time range,
    /// most transactions first. Counting changes visits every change; without
    /// `countingChanges` their count is 0 and only transactions are read.
    public func fieldSummaries(_ field: TransactionField, countingChanges: Bool = true) throws -> [FieldSummary] {
        let sql = try HistorySQL(store: self, query: HistoryQuery())
        // GRDB traps converting a BLOB to String or TEXT to Double (a damaged store): SQLite converts instead.
        let expr = "CAST(\(sql.expression(for: field)) AS TEXT)"
        let time = "CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END"
        let changes = countingChanges ? "SUM((SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID = t.Z_PK))" : "0"
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(expr) AS v, COUNT(*), \(changes),
                       MIN(\(time)), MAX(\(time)), MIN(t.Z_PK), MAX(t.Z_PK)
                FROM ATRANSACTION t\(sql.joinClause) GROUP BY v ORDER BY COUNT(*) DESC, v ASC
                """).map { row in
                FieldSummary(value: row[0], transactionCount: row[1] ?? 0, changeCount: row[2] ?? 0,
                             firstTimestamp: row[3], lastTimestamp: row[4], firstTransaction: row[5] ?? 0, lastTransaction: row[6] ?? 0)
            }
        }
    }

    /// Change counts per `ZENTITY` number.
    public func entityChangeCounts() throws -> [Int64: EntityChangeCounts] {
        try read { db in try entityChangeCounts(db) }
    }

    /// Change counts per `ZENTITY` number of the changes `filter` selects
    /// (a condition on `ACHANGE c`; nil: every change).
    func entityChangeCounts(_ db: Database, filter: String? = nil, arguments: StatementArguments = []) throws -> [Int64: EntityChangeCounts] {
        var result: [Int64: EntityChangeCounts] = [:]
        // Only integers are entity numbers and change types (GRDB traps converting TEXT to Int64).
        for row in try Row.fetchAll(db, sql: "SELECT CASE WHEN typeof(c.ZENTITY) = 'integer' THEN c.ZENTITY END AS e, "
                                    + "CASE WHEN typeof(c.ZCHANGETYPE) = 'integer' THEN c.ZCHANGETYPE END AS t, COUNT(*) FROM ACHANGE c"
                                    + (filter.map { " WHERE \($0)" } ?? "") + " GROUP BY 1, 2", arguments: arguments) {
            let entity: Int64 = row[0] ?? 0
            let count: Int = row[2] ?? 0
            var counts = result[entity] ?? EntityChangeCounts()
            switch ChangeType(rawValue: row[1] ?? -1) {
            case .insert: counts.inserts += count
            case .update: counts.updates += count
            case .delete: counts.deletes += count
            case .unknown: counts.other += count
            }
            result[entity] = counts
        }
        return result
    }
}
