import GRDB
import HistoryReading

/// Rows left behind by a parent that was deleted without its children: a parent's to-many
/// relationship deletes them in cascade, yet rows of the child entity name a parent that no
/// longer exists (dangling), or name no parent by any of the relationships that own them
/// (detached). Core Data never fetches them through a parent again, and nothing deletes them
/// later: they only grow the file.
public struct CascadeOrphans: Equatable, Sendable {
    /// One relationship that owns the child: the parent's to-many with the Cascade rule, and the
    /// child's to-one back.
    public struct Owner: Equatable, Sendable {
        public var parentEntity: String
        public var relationship: String
        public var inverse: String
        /// The column of `inverse` in the child's table.
        public var column: String
        /// Rows naming a parent that is not in the parent's table, and the first few of them.
        public var dangling: Int
        public var danglingSample: [ObjectReference]
        /// History's deletes of the parents the dangling rows name (when history still holds them).
        public var danglingParentDeletes: DeleteSpan?
    }

    /// The child entity (the destination of the owners), its table and rows.
    public var childEntity: String
    public var table: String
    public var childRows: Int
    /// Rows left behind, each counted once (a row may dangle by two owners).
    public var rows: Int
    /// Every relationship that owns the child; the dangling rows are counted per owner.
    public var owners: [Owner]
    /// Rows naming no parent by any owner, where the model requires one or the row refers to
    /// nothing else either (never for a tree, whose roots have no parent), and the first few.
    public var detached: Int
    public var detachedSample: [ObjectReference]
    /// History's deletes of any object of the owners' entities.
    public var parentDeletes: DeleteSpan?

    /// Rows naming a missing parent, over all owners.
    public var dangling: Int { owners.reduce(0) { $0 + $1.dangling } }
    /// Whether any row was left behind.
    public var orphans: Int { dangling + detached }
}

extension CascadeOrphans {
    /// The rows left behind, per child entity that a to-many relationship with the Cascade rule
    /// owns through a to-one inverse with a column in the child's table; entities without
    /// orphans are left out. Reads each child table once per owner, looking parents up by
    /// primary key; history is read only when orphans were found.
    public static func find(in store: HistoryStore, model: ManagedObjectModel) throws -> [CascadeOrphans] {
        try CascadeOrphanReading(store: store).cascadeOrphans(model: model)
    }
}

/// The reads of `CascadeOrphans.find(in:model:)`, on one store.
private struct CascadeOrphanReading {
    let store: HistoryStore

    /// How many object IDs each kind of orphan shows.
    static let orphanSampleSize = 3

    /// ``CascadeOrphans/find(in:model:)``.
    func cascadeOrphans(model: ManagedObjectModel) throws -> [CascadeOrphans] {
        let names = ColumnNames(model: model) { store.catalog.entity(named: $0)?.number }
        var owners: [String: [(parent: String, relationship: String, inverse: String)]] = [:]
        var order: [String] = []
        for parent in model.entities {
            for property in parent.properties {
                guard case .relationship(let info) = property.kind, info.isToMany, info.deleteRule == .cascade,
                    let child = info.destinationEntityName, let inverse = info.inverseName,
                    let back = model.allProperties(of: child).first(where: { $0.name == inverse }),
                    let relationship = back.relationship, !relationship.isToMany, !back.isTransient
                else { continue }
                if owners[child] == nil { order.append(child) }
                owners[child, default: []].append((parent.name, property.name, inverse))
            }
        }
        return try store.read { db in
            try order.compactMap { child in
                try cascadeOrphans(db, child: child, owners: owners[child] ?? [], model: model, names: names)
            }.filter { $0.orphans > 0 }
        }
    }

    private func cascadeOrphans(
        _ db: Database, child: String, owners: [(parent: String, relationship: String, inverse: String)],
        model: ManagedObjectModel, names: ColumnNames
    ) throws -> CascadeOrphans? {
        guard let childNumber = store.catalog.entity(named: child)?.number,
            let childTable = store.catalog.rootTableName(of: childNumber)
        else { return nil }
        let columns = try HistoryStore.columns(of: childTable, db)
        guard !columns.isEmpty else { return nil }
        let t = HistoryStore.quoted(childTable)
        let ofChild =
            "o.Z_ENT IN (\(store.catalog.descendants(of: childNumber).map(String.init).joined(separator: ", ")))"
        let chain = Set(model.inheritanceChain(of: child).map(\.name))
        // The child's column of `property`: the one Core Data names for the entity declaring it,
        // else `Z` + the name.
        func column(_ property: String) -> String? {
            let declaring =
                model.inheritanceChain(of: child).last { $0.property(named: property) != nil }?.name ?? child
            if let named = names.column(entity: declaring, property: property), columns.contains(named) { return named }
            return columns.contains(ColumnNames.base(property)) ? ColumnNames.base(property) : nil
        }
        var found: [CascadeOrphans.Owner] = []
        var ownerColumns: [String] = []
        var parentNumbers: [Int64] = []
        var selfOwned = false
        var danglingConditions: [String] = []
        for owner in owners {
            guard let column = column(owner.inverse),
                let parentNumber = store.catalog.entity(named: owner.parent)?.number,
                let parentTable = store.catalog.rootTableName(of: parentNumber),
                try !HistoryStore.columns(of: parentTable, db).isEmpty
            else { continue }
            // A tree (a parent entity owning its own kind): its roots have no parent.
            if chain.contains(owner.parent)
                || model.inheritanceChain(of: owner.parent).contains(where: { $0.name == child })
            {
                selfOwned = true
            }
            let parents = store.catalog.descendants(of: parentNumber)
            parentNumbers += parents
            let parentList = parents.map(String.init).joined(separator: ", ")
            let c = HistoryStore.quoted(column)
            let condition =
                """
                \(ofChild) AND o.\(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(HistoryStore.quoted(parentTable)) p \
                WHERE p.Z_PK = o.\(c) AND p.Z_ENT IN (\(parentList)))
                """
            var owned = CascadeOrphans.Owner(
                parentEntity: owner.parent, relationship: owner.relationship, inverse: owner.inverse, column: column,
                dangling: try count(db, "SELECT COUNT(*) FROM \(t) o WHERE \(condition)"), danglingSample: [])
            if owned.dangling > 0 {
                owned.danglingSample = try sample(db, table: t, condition: condition, fallback: child)
                danglingConditions.append(condition)
                owned.danglingParentDeletes = try deleteSpan(
                    db,
                    """
                    c.ZCHANGETYPE = 2 AND c.ZENTITY IN (\(parentList)) AND c.ZENTITYPK IN (SELECT o.\(c) FROM \
                    \(t) o WHERE \(condition))
                    """
                )
            }
            found.append(owned)
            ownerColumns.append(c)
        }
        guard !found.isEmpty else { return nil }
        var result = CascadeOrphans(
            childEntity: child, table: childTable, childRows: 0, rows: 0, owners: found, detached: 0, detachedSample: []
        )
        var detachedCondition: String?
        if !selfOwned {
            // A parent is optional to most models, and rows without one are often meant to be:
            // a row counts as detached when its model requires a parent, or when it refers to
            // nothing at all (every to-one NULL), so that nothing can ever reach it.
            let required = owners.contains { owner in
                model.allProperties(of: child).first { $0.name == owner.inverse }?.isOptional == false
            }
            let others =
                required
                ? []
                : model.allProperties(of: child).compactMap { property -> String? in
                    guard let r = property.relationship, !r.isToMany, !property.isTransient else { return nil }
                    return column(property.name).map(HistoryStore.quoted)
                }
            let detached = ofChild + Set(ownerColumns + others).sorted().map { " AND o.\($0) IS NULL" }.joined()
            result.detached = try count(db, "SELECT COUNT(*) FROM \(t) o WHERE \(detached)")
            if result.detached > 0 {
                result.detachedSample = try sample(db, table: t, condition: detached, fallback: child)
                detachedCondition = detached
            }
        }
        if result.orphans > 0 {
            result.childRows = try count(db, "SELECT COUNT(*) FROM \(t) o WHERE \(ofChild)")
            let any = (danglingConditions + [detachedCondition].compactMap { $0 }).map { "(\($0))" }.joined(
                separator: " OR ")
            result.rows = try count(db, "SELECT COUNT(*) FROM \(t) o WHERE \(any)")
            result.parentDeletes = try deleteSpan(
                db,
                """
                c.ZCHANGETYPE = 2 AND c.ZENTITY IN \
                (\(Set(parentNumbers).sorted().map(String.init).joined(separator: ", ")))
                """
            )
        }
        return result
    }

    private func count(_ db: Database, _ sql: String) throws -> Int {
        try db.firstRow(sql) { Int($0.int64(0)) } ?? 0
    }

    private func sample(_ db: Database, table: String, condition: String, fallback: String) throws -> [ObjectReference]
    {
        var found: [ObjectReference] = []
        try db.forEachRow(
            "SELECT o.Z_PK, o.Z_ENT FROM \(table) o WHERE \(condition) ORDER BY o.Z_PK LIMIT \(Self.orphanSampleSize)"
        ) {
            found.append(
                ObjectReference(
                    entityName: store.catalog.entity(number: $0.int64(1))?.name ?? fallback, primaryKey: $0.int64(0)))
        }
        return found
    }

    /// The deletes `condition` selects (on `ACHANGE c`), with their transactions' span.
    private func deleteSpan(_ db: Database, _ condition: String) throws -> DeleteSpan? {
        try db.firstRow(
            """
            SELECT COUNT(*), MIN(CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END),
                   MAX(CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END), MIN(t.Z_PK), \
            MAX(t.Z_PK)
            FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE \(condition)
            """
        ) { row -> DeleteSpan? in
            guard row.int64(0) > 0 else { return nil }
            var ignored: String?
            return DeleteSpan(
                deletes: Int(row.int64(0)), first: row.number(1, problem: &ignored),
                last: row.number(2, problem: &ignored),
                firstTransaction: row.int64(3), lastTransaction: row.int64(4))
        } ?? nil
    }
}
