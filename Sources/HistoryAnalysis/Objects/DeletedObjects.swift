import Foundation
import GRDB
import HistoryReading

/// An object that history shows gone: deleted by a recorded delete (with its tombstone), or
/// changed in history while its row is no longer in its table and no delete is recorded
/// (the delete's transaction purged since, or the row deleted outside Core Data).
public struct DeletedObject: Sendable {
    public enum Kind: String, Sendable {
        case deleted
        case goneWithoutDelete = "gone-without-delete"
    }

    public var kind: Kind
    public var entityName: String
    public var entityNumber: Int64
    public var entityPK: Int64
    /// A delete: the delete's transaction. Gone without one: the last transaction that changed it.
    public var transaction: Transaction
    /// A delete: the change, with its tombstone (nil for an object gone without a delete).
    public var change: Change?
    /// Gone without a delete: how many changes history holds of it, and the first one's transaction.
    public var changeCount: Int
    public var firstTransactionNumber: Int64
}

extension DeletedObject {
    /// Calls `body` with every object `store`'s history shows deleted, entity by entity (by
    /// name), each entity's deletes in transaction order; then with every object gone without a
    /// recorded delete, entity by entity, by key. `entities` (names; empty: all) narrows both. At
    /// most `perEntity` objects of each entity and of each kind, and `limit` in all (nil: every one).
    public static func forEach(
        in store: HistoryStore, entities: [String] = [], includeSubentities: Bool = false, perEntity: Int? = nil,
        limit: Int? = nil, decoder: ChangeDecoder, _ body: (DeletedObject) throws -> Void
    ) throws {
        try DeletedObjectReading(store: store).forEachDeletedObject(
            entities: entities, includeSubentities: includeSubentities, perEntity: perEntity, limit: limit,
            decoder: decoder, body)
    }
}

extension DeletionSummary {
    /// How many objects of each entity `store`'s history shows deleted (and how many of those
    /// deletes kept tombstone values) and gone without a recorded delete: what
    /// ``DeletedObject/forEach(in:entities:includeSubentities:perEntity:limit:decoder:_:)`` lists.
    public static func read(in store: HistoryStore, entities: [String] = [], includeSubentities: Bool = false) throws
        -> DeletionSummary
    {
        try DeletedObjectReading(store: store).deletionSummary(
            entities: entities, includeSubentities: includeSubentities)
    }
}

/// The reads of `DeletedObject.forEach(in:…)` and `DeletionSummary.read(in:…)`, on one store.
private struct DeletedObjectReading {
    let store: HistoryStore

    /// ``DeletedObject/forEach(in:entities:includeSubentities:perEntity:limit:decoder:_:)``.
    func forEachDeletedObject(
        entities: [String] = [], includeSubentities: Bool = false, perEntity: Int? = nil, limit: Int? = nil,
        decoder: ChangeDecoder, _ body: (DeletedObject) throws -> Void
    ) throws {
        let named = try deletionEntities(entities, includeSubentities: includeSubentities)
        var left = limit ?? .max
        try store.read { db in
            let deleting = Set(
                try Int64.fetchAll(db, sql: "SELECT DISTINCT ZENTITY FROM ACHANGE WHERE ZCHANGETYPE = 2"))
            for entity in named where deleting.contains(entity.number) && left > 0 {
                let query = HistoryQuery(entities: [entity.name], changeTypes: [.delete])
                var entityLeft = min(perEntity ?? .max, left)
                do {
                    try store.readTransactions(query, decoder: decoder, layout: .oneRead) {
                        try $0.forEach { tx, changes in
                            try changes.forEach { change in
                                guard entityLeft > 0 else { throw DeletionListStop() }
                                try body(
                                    DeletedObject(
                                        kind: .deleted, entityName: entity.name, entityNumber: entity.number,
                                        entityPK: change.entityPK, transaction: tx, change: change, changeCount: 1,
                                        firstTransactionNumber: tx.number))
                                entityLeft -= 1
                                left -= 1
                            }
                        }
                    }
                } catch is DeletionListStop {}
            }
            guard left > 0 else { return }
            var shown: [Int64: Int] = [:]
            try forEachObjectGoneWithoutDelete(named, db) { object in
                guard shown[object.entityNumber, default: 0] < perEntity ?? .max else { return true }
                try body(object)
                shown[object.entityNumber, default: 0] += 1
                left -= 1
                return left > 0
            }
        }
    }

    /// ``DeletionSummary/read(in:entities:includeSubentities:)``.
    func deletionSummary(entities: [String] = [], includeSubentities: Bool = false) throws -> DeletionSummary {
        let named = try deletionEntities(entities, includeSubentities: includeSubentities)
        let chosen = Set(named.map(\.number))
        return try store.read { db in
            let anyValue =
                store.schema.tombstoneColumns.isEmpty
                ? "0" : store.schema.tombstoneColumns.map { "c.\($0) IS NOT NULL" }.joined(separator: " OR ")
            // Deletes whose transaction is gone (orphans) are not listed, so not counted.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.ZENTITY, COUNT(*), SUM(\(anyValue)), MIN(c.ZTRANSACTIONID), MAX(c.ZTRANSACTIONID) FROM \
                    ACHANGE c
                    JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE c.ZCHANGETYPE = 2 GROUP BY c.ZENTITY
                    """)
            var byNumber: [Int64: DeletionSummary.Entity] = [:]
            for row in rows {
                let number: Int64 = row[0]
                guard chosen.contains(number), let entity = named.first(where: { $0.number == number }) else {
                    continue
                }
                byNumber[number] = DeletionSummary.Entity(
                    name: entity.name, number: number, deleted: row[1], withTombstoneValues: row[2] ?? 0,
                    goneWithoutDelete: 0, firstDelete: row[3], lastDelete: row[4])
            }
            try forEachObjectGoneWithoutDelete(named, db) { object in
                byNumber[
                    object.entityNumber,
                    default: DeletionSummary.Entity(name: object.entityName, number: object.entityNumber)
                ].goneWithoutDelete += 1
                return true
            }
            return DeletionSummary(entities: byNumber.values.sorted { $0.name < $1.name })
        }
    }

    /// The entities `names` (empty: all) and with `includeSubentities` their subentities, by name.
    private func deletionEntities(_ names: [String], includeSubentities: Bool) throws -> [CatalogEntity] {
        let chosen: Set<Int64>
        do {
            chosen = Set(try store.catalog.numbers(of: names, includingSubentities: includeSubentities))
        } catch let error as QueryError {
            throw StoreQueryError(path: store.path, error)
        }
        return store.catalog.entities.filter { names.isEmpty || chosen.contains($0.number) }.sorted {
            $0.name < $1.name
        }
    }

    /// One scan of `ACHANGE`: the objects of `entities` changed in history whose rows are not in
    /// their tables and that no delete names; `body` returns false to stop.
    private func forEachObjectGoneWithoutDelete(
        _ entities: [CatalogEntity], _ db: Database, _ body: (DeletedObject) throws -> Bool
    ) throws {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        var byTable: [String: [CatalogEntity]] = [:]
        for entity in entities {
            guard let table = store.catalog.rootTableName(of: entity.number), tables.contains(table) else { continue }
            byTable[table, default: []].append(entity)
        }
        guard !byTable.isEmpty else { return }
        let conditions = byTable.sorted { $0.key < $1.key }.map { table, members in
            """
            (c.ZENTITY IN (\(members.map { String($0.number) }.joined(separator: ","))) AND NOT EXISTS (SELECT 1 \
            FROM \"\(table)\" t WHERE t.Z_PK = c.ZENTITYPK))
            """
        }
        // Joined as a balanced tree: SQLite refuses an expression nested 1,000 deep (a chain of ORs is).
        func balanced(_ terms: ArraySlice<String>) -> String {
            guard terms.count > 1 else { return terms.first ?? "0" }
            let middle = terms.startIndex + terms.count / 2
            return "(\(balanced(terms[..<middle])) OR \(balanced(terms[middle...])))"
        }
        // By entity name, then key: grouped in that order (each entity has its own rank), so
        // the groups need no second sort. Each joined to its last transaction in the same read.
        let rank =
            "CASE c.ZENTITY "
            + entities.enumerated().map { "WHEN \($0.element.number) THEN \($0.offset)" }.joined(separator: " ")
            + " END"
        let groups = """
            SELECT \(rank) AS rank, c.ZENTITY, c.ZENTITYPK, COUNT(*), MIN(c.ZTRANSACTIONID), MAX(c.ZTRANSACTIONID) AS \
            last FROM ACHANGE c
            WHERE \(balanced(conditions[...]))
            GROUP BY 1, c.ZENTITYPK HAVING MAX(c.ZCHANGETYPE = 2) = 0
            """
        let sql = try HistorySQL(store: store, query: HistoryQuery())
        let names = Dictionary(entities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let cursor = try RawCursor(
            db.makeStatement(sql: sql.rowsWithTransactionSelect(groups, order: "r.rank, r.ZENTITYPK")), arguments: [])
        defer { cursor.finish() }
        let transactionNames = try TransactionNames(sql, db)
        // The transaction's columns come first (as a transaction select's), then the group's.
        let group = Int32(HistorySQL.transactionColumnCount)
        while try cursor.next() {
            let number = cursor.int64(group + 1)
            // A change whose transaction is gone (an orphan) has no time or author to show.
            guard let name = names[number], cursor.storageClass(0) != .null else { continue }
            let tx = try store.transaction(cursor, names: transactionNames)
            let object = DeletedObject(
                kind: .goneWithoutDelete, entityName: name, entityNumber: number, entityPK: cursor.int64(group + 2),
                transaction: tx,
                change: nil, changeCount: Int(cursor.int64(group + 3)), firstTransactionNumber: cursor.int64(group + 4))
            guard try body(object) else { return }
        }
    }
}

/// Ends ``DeletedObject/forEach(in:entities:includeSubentities:perEntity:limit:decoder:_:)``'s
/// read of one entity's deletes when it has listed enough.
private struct DeletionListStop: Error {}
