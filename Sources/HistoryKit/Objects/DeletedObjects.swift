import Foundation
import GRDB

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

extension HistoryStore {
    /// Calls `body` with every object history shows deleted, entity by entity (by name), each
    /// entity's deletes in transaction order; then with every object gone without a recorded
    /// delete, entity by entity, by key. `entities` (names; empty: all) narrows both.
    public func forEachDeletedObject(entities: [String] = [], includeSubentities: Bool = false, decoder: ChangeDecoder,
                                     _ body: (DeletedObject) throws -> Void) throws {
        let chosen: Set<Int64>
        do {
            chosen = Set(try catalog.numbers(of: entities, includingSubentities: includeSubentities))
        } catch let error as QueryError {
            throw StoreQueryError(path: path, error)
        }
        let named = catalog.entities.filter { entities.isEmpty || chosen.contains($0.number) }.sorted { $0.name < $1.name }
        try read { db in
            let deleting = Set(try Int64.fetchAll(db, sql: "SELECT DISTINCT ZENTITY FROM ACHANGE WHERE ZCHANGETYPE = 2"))
            for entity in named where deleting.contains(entity.number) {
                let query = HistoryQuery(entities: [entity.name], changeTypes: [.delete])
                try forEachTransactionWithChanges(query, decoder: decoder) { tx, changes in
                    try changes.forEach { change in
                        try body(DeletedObject(kind: .deleted, entityName: entity.name, entityNumber: entity.number, entityPK: change.entityPK,
                                               transaction: tx, change: change, changeCount: 1, firstTransactionNumber: tx.number))
                    }
                }
            }
            try forEachObjectGoneWithoutDelete(named, db, body)
        }
    }

    /// One scan of `ACHANGE`: the objects of `entities` changed in history whose rows are not in
    /// their tables and that no delete names.
    private func forEachObjectGoneWithoutDelete(_ entities: [CatalogEntity], _ db: Database, _ body: (DeletedObject) throws -> Void) throws {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        var byTable: [String: [CatalogEntity]] = [:]
        for entity in entities {
            guard let table = catalog.rootTableName(of: entity.number), tables.contains(table) else { continue }
            byTable[table, default: []].append(entity)
        }
        guard !byTable.isEmpty else { return }
        let conditions = byTable.sorted { $0.key < $1.key }.map { table, members in
            "(c.ZENTITY IN (\(members.map { String($0.number) }.joined(separator: ","))) AND NOT EXISTS (SELECT 1 FROM \"\(table)\" t WHERE t.Z_PK = c.ZENTITYPK))"
        }
        // Joined as a balanced tree: SQLite refuses an expression nested 1,000 deep (a chain of ORs is).
        func balanced(_ terms: ArraySlice<String>) -> String {
            guard terms.count > 1 else { return terms.first ?? "0" }
            let middle = terms.startIndex + terms.count / 2
            return "(\(balanced(terms[..<middle])) OR \(balanced(terms[middle...])))"
        }
        // By entity name, then key: grouped in that order (each entity has its own rank), so
        // the groups need no second sort. Each joined to its last transaction in the same read.
        let rank = "CASE c.ZENTITY " + entities.enumerated().map { "WHEN \($0.element.number) THEN \($0.offset)" }.joined(separator: " ") + " END"
        let groups = """
            SELECT \(rank) AS rank, c.ZENTITY, c.ZENTITYPK, COUNT(*), MIN(c.ZTRANSACTIONID), MAX(c.ZTRANSACTIONID) AS last FROM ACHANGE c
            WHERE \(balanced(conditions[...]))
            GROUP BY 1, c.ZENTITYPK HAVING MAX(c.ZCHANGETYPE = 2) = 0
            """
        let sql = try HistorySQL(store: self, query: HistoryQuery())
        let names = Dictionary(entities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let cursor = try RawCursor(db.makeStatement(sql: sql.rowsWithTransactionSelect(groups, order: "r.rank, r.ZENTITYPK")), arguments: [])
        defer { cursor.finish() }
        let transactionNames = try TransactionNames(sql, db)
        // The transaction's columns come first (as a transaction select's), then the group's.
        let group = Int32(HistorySQL.transactionColumnCount)
        while try cursor.next() {
            let number = cursor.int64(group + 1)
            // A change whose transaction is gone (an orphan) has no time or author to show.
            guard let name = names[number], cursor.storageClass(0) != .null else { continue }
            let tx = try transaction(cursor, names: transactionNames)
            try body(DeletedObject(kind: .goneWithoutDelete, entityName: name, entityNumber: number, entityPK: cursor.int64(group + 2), transaction: tx,
                                   change: nil, changeCount: Int(cursor.int64(group + 3)), firstTransactionNumber: cursor.int64(group + 4)))
        }
    }
}
