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

    mutating func add(_ type: ChangeType, count: Int) {
        switch type {
        case .insert: inserts += count
        case .update: updates += count
        case .delete: deletes += count
        case .unknown: other += count
        }
    }
}

extension HistoryStore {
    /// Each distinct value of `field` with its transaction and change counts and time range,
    /// most transactions first. Counting changes visits every change; without
    /// `countingChanges` their count is 0 and only transactions are read.
    public func fieldSummaries(_ field: TransactionField, countingChanges: Bool = true) throws -> [FieldSummary] {
        let sql = try HistorySQL(store: self, query: HistoryQuery())
        // A BLOB (never written by Core Data) is no name, as the transaction readers read it.
        let expr = "CASE WHEN typeof(\(sql.expression(for: field))) = 'blob' THEN NULL ELSE \(sql.expression(for: field)) END"
        let changes = countingChanges ? "SUM((SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID = t.Z_PK))" : "0"
        // Only numbers count as times (TEXT or BLOB in ZTIMESTAMP is reported by the readers).
        let time = "CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END"
        return try read { db in
            var result: [FieldSummary] = []
            var ignored: String?
            try db.forEachRow("""
                SELECT \(expr) AS v, COUNT(*), \(changes), MIN(\(time)), MAX(\(time)), MIN(t.Z_PK), MAX(t.Z_PK)
                FROM ATRANSACTION t\(sql.joinClause) GROUP BY v ORDER BY COUNT(*) DESC, v ASC
                """) { row in
                result.append(FieldSummary(value: row.optionalText(0), transactionCount: Int(row.int64(1)), changeCount: Int(row.int64(2)),
                                           firstTimestamp: row.number(3, problem: &ignored), lastTimestamp: row.number(4, problem: &ignored),
                                           firstTransaction: row.int64(5), lastTransaction: row.int64(6)))
            }
            return result
        }
    }

    /// Change counts per `ZENTITY` number.
    public func entityChangeCounts() throws -> EntityChangeTally {
        try read { db in try entityChangeCounts(db) }
    }

    /// Change counts per `ZENTITY` number of the changes `filter` selects
    /// (a condition on `ACHANGE c`; nil: every change).
    func entityChangeCounts(_ db: Database, filter: String? = nil, arguments: StatementArguments = []) throws -> EntityChangeTally {
        var result = EntityChangeTally()
        var ignored: String?
        try db.forEachRow("SELECT c.ZENTITY, c.ZCHANGETYPE, COUNT(*) FROM ACHANGE c"
                          + (filter.map { " WHERE \($0)" } ?? "") + " GROUP BY 1, 2", arguments: arguments) { row in
            let count = Int(row.int64(2))
            let type = row.integer(1, problem: &ignored).map(ChangeType.init(rawValue:)) ?? .unknown(-1)
            if let entity = row.integer(0, problem: &ignored) {
                result.byEntity[entity, default: EntityChangeCounts()].add(type, count: count)
            } else {
                result.withoutEntityNumber.add(type, count: count)
            }
        }
        return result
    }
}

/// Change counts by entity, and of changes whose `ZENTITY` is not an integer.
public struct EntityChangeTally: Equatable, Sendable {
    /// Counts per `ZENTITY` number.
    public var byEntity: [Int64: EntityChangeCounts] = [:]
    /// Changes whose `ZENTITY` is NULL, TEXT, REAL or a BLOB.
    public var withoutEntityNumber = EntityChangeCounts()

    /// No changes yet.
    public init() {}
}
