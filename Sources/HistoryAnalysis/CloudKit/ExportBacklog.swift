import GRDB
import HistoryReading

/// Mirrored objects whose newest change by the app's authors is newer than the
/// last transaction CloudKit exported for them (what "why doesn't this sync"
/// is asked about). CloudKit's own changes (its imports) are not exported, so
/// they are not counted.
public struct ExportBacklog: Sendable {
    /// One such object.
    public struct Object: Equatable, Sendable {
        public var entityNumber: Int64
        public var entityName: String?
        public var primaryKey: Int64
        /// `ZLASTEXPORTEDTRANSACTIONNUMBER`; nil: never exported.
        public var lastExported: Int64?
        /// The newest transaction that changed it (by an author other than CloudKit).
        public var lastChanged: Int64
    }

    /// All such objects.
    public var count: Int { byEntity.values.reduce(0, +) }
    /// Their number per entity number.
    public var byEntity: [Int64: Int]
    /// The most recently changed first, at most as many as asked for.
    public var objects: [Object]
}

extension ExportBacklog {
    /// `store`'s export backlog, listing at most `limit` objects; nil when the store has no
    /// `ANSCKRECORDMETADATA` with the columns it needs.
    public static func read(in store: HistoryStore, limit: Int) throws -> ExportBacklog? {
        try ExportBacklogReading(store: store).exportBacklog(limit: limit)
    }
}

/// The reads of `ExportBacklog.read(in:limit:)`, on one store.
private struct ExportBacklogReading {
    let store: HistoryStore

    /// ``ExportBacklog/read(in:limit:)``.
    func exportBacklog(limit: Int) throws -> ExportBacklog? {
        let sql = try HistorySQL(store: store, query: HistoryQuery())
        let author = sql.expression(for: .author)
        // As AuthorFamily tells CloudKit's authors (the prefix holds no quote).
        let prefix = AuthorFamily.cloudKitPrefix
        return try store.read { db -> ExportBacklog? in
            guard try db.tableExists("ANSCKRECORDMETADATA") else { return nil }
            let columns = Set(try db.columns(in: "ANSCKRECORDMETADATA").map { $0.name.uppercased() })
            guard columns.isSuperset(of: ["ZENTITYID", "ZENTITYPK", "ZLASTEXPORTEDTRANSACTIONNUMBER"]) else {
                return nil
            }
            var backlog = ExportBacklog(byEntity: [:], objects: [])
            // Per object, its newest change by an author that is not CloudKit's; then the
            // objects CloudKit mirrors whose last export is older.
            try db.forEachRow(
                """
                SELECT c.entity, c.pk, r.ZLASTEXPORTEDTRANSACTIONNUMBER, c.last
                FROM (SELECT ch.ZENTITY AS entity, ch.ZENTITYPK AS pk, MAX(ch.ZTRANSACTIONID) AS last
                      FROM ACHANGE ch JOIN ATRANSACTION t ON t.Z_PK = ch.ZTRANSACTIONID\(sql.joinClause)
                      WHERE \(author) IS NULL OR typeof(\(author)) <> 'text' OR substr(\(author), 1, \
                \(prefix.utf8.count)) <> '\(prefix)'
                      GROUP BY ch.ZENTITY, ch.ZENTITYPK) c
                JOIN ANSCKRECORDMETADATA r ON r.ZENTITYID = c.entity AND r.ZENTITYPK = c.pk
                WHERE typeof(c.entity) = 'integer' AND typeof(c.pk) = 'integer' AND typeof(c.last) = 'integer'
                  AND c.last > (CASE WHEN typeof(r.ZLASTEXPORTEDTRANSACTIONNUMBER) = 'integer' THEN \
                r.ZLASTEXPORTEDTRANSACTIONNUMBER ELSE 0 END)
                ORDER BY c.last DESC, c.entity, c.pk
                """
            ) { row in
                let entity = row.int64(0)
                backlog.byEntity[entity, default: 0] += 1
                guard backlog.objects.count < limit else { return }
                var ignored: String?
                backlog.objects.append(
                    ExportBacklog.Object(
                        entityNumber: entity, entityName: store.catalog.entity(number: entity)?.name,
                        primaryKey: row.int64(1), lastExported: row.integer(2, problem: &ignored),
                        lastChanged: row.int64(3)))
            }
            return backlog
        }
    }
}
