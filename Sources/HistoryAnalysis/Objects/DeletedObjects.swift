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
    /// Reads every object `store`'s history shows gone: calls `summary` once with how many of
    /// each entity there are (``DeletionSummary``), then `body` with the objects listed: those
    /// deleted, entity by entity (by name), each entity's deletes in transaction order; then
    /// those gone without a recorded delete, entity by entity, by key. `entities` (names; empty:
    /// all) narrows both. At most `perEntity` objects of each entity and of each kind are listed,
    /// and `limit` in all (nil: every one).
    ///
    /// With `perEntity`, the objects gone without a delete are grouped once: each counted, the
    /// first of each entity kept (so memory is bounded by `perEntity` per entity). Without it,
    /// they are counted in one grouping and listed as a second one reads them.
    public static func list(
        in store: HistoryStore, entities: [String] = [], includeSubentities: Bool = false, perEntity: Int? = nil,
        limit: Int? = nil, decoder: ChangeDecoder, summary: (DeletionSummary) throws -> Void,
        _ body: (DeletedObject) throws -> Void
    ) throws {
        try DeletedObjectReading(store: store).list(
            entities: entities, includeSubentities: includeSubentities, perEntity: perEntity, limit: limit,
            decoder: decoder, summary: summary, body)
    }
}

/// The reads of ``DeletedObject/list(in:entities:includeSubentities:perEntity:limit:decoder:summary:_:)``,
/// on one store.
private struct DeletedObjectReading {
    let store: HistoryStore

    func list(
        entities: [String], includeSubentities: Bool, perEntity: Int?, limit: Int?, decoder: ChangeDecoder,
        summary: (DeletionSummary) throws -> Void, _ body: (DeletedObject) throws -> Void
    ) throws {
        let named = try deletionEntities(entities, includeSubentities: includeSubentities)
        var left = limit ?? .max
        try store.read { db in
            var byNumber = try deleteCounts(named, db)
            // With a limit per entity, the objects gone without a delete are counted as the first
            // of each are kept; else counted alone, and listed after the deletes.
            var firstGone: [DeletedObject] = []
            if let perEntity {
                // Each entity's groups with the lowest keys, in key order, whatever order they come in.
                var kept: [Int64: [GoneGroup]] = [:]
                try forEachGoneGroup(named, db) { group in
                    byNumber[group.entity, default: DeletionSummary.Entity(name: group.name, number: group.entity)]
                        .goneWithoutDelete += 1
                    var groups = kept[group.entity, default: []]
                    guard groups.count < perEntity || group.pk < (groups.last?.pk ?? .min) else { return }
                    groups.insert(group, at: groups.firstIndex { $0.pk > group.pk } ?? groups.endIndex)
                    if groups.count > perEntity { groups.removeLast() }
                    kept[group.entity] = groups
                }
                for entity in named {
                    for group in kept[entity.number] ?? [] {
                        guard let tx = try store.transaction(number: group.last) else { continue }
                        firstGone.append(group.object(tx))
                    }
                }
            } else {
                for (number, count) in try goneCounts(named, db) {
                    guard let name = named.first(where: { $0.number == number })?.name else { continue }
                    byNumber[number, default: DeletionSummary.Entity(name: name, number: number)].goneWithoutDelete =
                        count
                }
            }
            try summary(DeletionSummary(entities: byNumber.values.sorted { $0.name < $1.name }))
            for entity in named where byNumber[entity.number].map({ $0.deleted > 0 }) == true && left > 0 {
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
            if perEntity != nil {
                for object in firstGone.prefix(left) { try body(object) }
                return
            }
            try forEachObjectGoneWithoutDelete(named, db) { object in
                try body(object)
                left -= 1
                return left > 0
            }
        }
    }

    /// Per entity of `entities` with a recorded delete: how many objects were deleted, how
    /// many of those deletes kept tombstone values, and the first and last deleting
    /// transaction. Deletes whose transaction is gone (orphans) are not listed, so not counted.
    private func deleteCounts(_ entities: [CatalogEntity], _ db: Database) throws -> [Int64: DeletionSummary.Entity] {
        let anyValue =
            store.schema.tombstoneColumns.isEmpty
            ? "0" : store.schema.tombstoneColumns.map { "c.\($0) IS NOT NULL" }.joined(separator: " OR ")
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
            guard let entity = entities.first(where: { $0.number == number }) else { continue }
            byNumber[number] = DeletionSummary.Entity(
                name: entity.name, number: number, deleted: row[1], withTombstoneValues: row[2] ?? 0,
                goneWithoutDelete: 0, firstDelete: row[3], lastDelete: row[4])
        }
        return byNumber
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

    /// The objects of `entities` changed in history whose rows are not in their tables and that
    /// no delete names, grouped in one scan of `ACHANGE`, by entity name then key: columns
    /// `rank` (the entity's place by name), `ZENTITY`, `ZENTITYPK`, its changes, its first
    /// transaction and `last`, its last. An object whose last transaction is gone (an orphan
    /// change's) has no time or author to show: it is left out. Nil when no entity has a table.
    private func goneGroups(_ entities: [CatalogEntity], _ db: Database) throws -> String? {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        var byTable: [String: [CatalogEntity]] = [:]
        for entity in entities {
            guard let table = store.catalog.rootTableName(of: entity.number), tables.contains(table) else { continue }
            byTable[table, default: []].append(entity)
        }
        guard !byTable.isEmpty else { return nil }
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
        // the groups need no second sort.
        let rank =
            "CASE c.ZENTITY "
            + entities.enumerated().map { "WHEN \($0.element.number) THEN \($0.offset)" }.joined(separator: " ")
            + " END"
        return """
            SELECT * FROM (SELECT \(rank) AS rank, c.ZENTITY, c.ZENTITYPK, COUNT(*), MIN(c.ZTRANSACTIONID), \
            MAX(c.ZTRANSACTIONID) AS last FROM ACHANGE c
            WHERE \(balanced(conditions[...]))
            GROUP BY 1, c.ZENTITYPK HAVING MAX(c.ZCHANGETYPE = 2) = 0) g
            WHERE EXISTS (SELECT 1 FROM ATRANSACTION t WHERE t.Z_PK = g.last)
            """
    }

    /// How many objects of each of `entities` ``goneGroups(_:_:)`` holds, by entity number.
    private func goneCounts(_ entities: [CatalogEntity], _ db: Database) throws -> [(Int64, Int)] {
        guard let groups = try goneGroups(entities, db) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT ZENTITY, COUNT(*) FROM (\(groups)) GROUP BY ZENTITY").map {
            ($0[0], $0[1])
        }
    }

    /// An object gone without a delete, as ``goneGroups(_:_:)`` reads it.
    private struct GoneGroup {
        let entity: Int64
        let name: String
        let pk: Int64
        let changes: Int
        let first: Int64
        let last: Int64

        /// The object, with `last`'s transaction.
        func object(_ transaction: Transaction) -> DeletedObject {
            DeletedObject(
                kind: .goneWithoutDelete, entityName: name, entityNumber: entity, entityPK: pk,
                transaction: transaction, change: nil, changeCount: changes, firstTransactionNumber: first)
        }
    }

    /// Calls `body` with each group of ``goneGroups(_:_:)`` (in the order SQLite groups them, not
    /// sorted again).
    private func forEachGoneGroup(_ entities: [CatalogEntity], _ db: Database, _ body: (GoneGroup) throws -> Void)
        throws
    {
        guard let groups = try goneGroups(entities, db) else { return }
        let names = Dictionary(entities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let cursor = try RawCursor(db.makeStatement(sql: groups), arguments: [])
        defer { cursor.finish() }
        while try cursor.next() {
            guard let name = names[cursor.int64(1)] else { continue }
            let group = GoneGroup(
                entity: cursor.int64(1), name: name, pk: cursor.int64(2), changes: Int(cursor.int64(3)),
                first: cursor.int64(4), last: cursor.int64(5))
            try body(group)
        }
    }

    /// The objects of ``goneGroups(_:_:)``, each with its last transaction, read in the same
    /// select (one sorted read, not a lookup per object); `body` returns false to stop.
    private func forEachObjectGoneWithoutDelete(
        _ entities: [CatalogEntity], _ db: Database, _ body: (DeletedObject) throws -> Bool
    ) throws {
        guard let groups = try goneGroups(entities, db) else { return }
        let sql = try HistorySQL(store: store, query: HistoryQuery())
        let names = Dictionary(entities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let cursor = try RawCursor(
            db.makeStatement(sql: sql.rowsWithTransactionSelect(groups, order: "r.rank, r.ZENTITYPK")), arguments: [])
        defer { cursor.finish() }
        let transactionNames = try TransactionNames(sql, db)
        // The transaction's columns come first (as a transaction select's), then the group's.
        let column = Int32(HistorySQL.transactionColumnCount)
        while try cursor.next() {
            let number = cursor.int64(column + 1)
            guard let name = names[number], cursor.storageClass(0) != .null else { continue }
            let group = GoneGroup(
                entity: number, name: name, pk: cursor.int64(column + 2), changes: Int(cursor.int64(column + 3)),
                first: cursor.int64(column + 4), last: cursor.int64(column + 5))
            guard try body(group.object(try store.transaction(cursor, names: transactionNames))) else { return }
        }
    }
}

/// Ends ``DeletedObject/list(in:entities:includeSubentities:perEntity:limit:decoder:summary:_:)``'s
/// read of one entity's deletes when it has listed enough.
private struct DeletionListStop: Error {}
