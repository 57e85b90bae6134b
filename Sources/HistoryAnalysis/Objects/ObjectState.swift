import GRDB
import HistoryReading

/// An object's current row, read from its root entity's table and named
/// through the model: attributes by name, to-one relationships as object
/// IDs, to-many relationships (with a to-one inverse) as the objects whose
/// foreign key points here.
public struct ObjectState: Equatable, Sendable {
    /// How many objects a to-many relationship's value lists.
    public static let toManyShown = 5

    /// The object, with its concrete entity (the row's `Z_ENT`).
    public var object: ObjectReference
    /// The root entity's table (`Z` + its name, uppercased).
    public var table: String
    /// `Z_OPT`: Core Data's version count of the row (raised on each save that changes it).
    public var version: Int64?
    /// One entry per stored property of the entity (by name), or per
    /// column when no model names them.
    public var properties: [PropertyValue]
    /// What could not be read, and why.
    public var problems: [String]
}

/// One property of an object and its current value.
public struct PropertyValue: Equatable, Sendable {
    public enum Content: Equatable, Sendable {
        /// An attribute (nil: NULL), typed by the model.
        case attribute(AttributeType, StoredValue?)
        /// A to-one relationship: the object it points to, or nil.
        case toOne(ObjectReference?)
        /// A to-many relationship: how many objects, and the first few.
        case toMany(count: Int, first: [ObjectReference])
        /// A column no model names (no model, or the entity is not in it).
        case column(StoredValue?)
        /// Not read, and why (a many-to-many relationship, a missing column).
        case unread(String)
    }

    public var name: String
    /// The column it was read from, when one was.
    public var column: String?
    public var content: Content
}

/// What looking an object up found.
public enum ObjectLookup: Equatable, Sendable {
    case found(ObjectState)
    /// No row (deleted, or never saved here); the reason says what was looked at.
    case missing(reason: String)
}

extension ObjectLookup {
    /// The current row of `object` in `store` (its entity or a subentity, by the row's
    /// `Z_ENT`), named with `model` when it has the entity.
    public static func find(_ object: ObjectReference, in store: HistoryStore, model: ManagedObjectModel?) throws
        -> ObjectLookup
    {
        try find(object, in: store, model: model, naming: model.map { ModelColumns($0, catalog: store.catalog) })
    }

    /// ``find(_:in:model:)`` with the columns of `model` named once, for many lookups.
    static func find(
        _ object: ObjectReference, in store: HistoryStore, model: ManagedObjectModel?, naming: ModelColumns?
    ) throws -> ObjectLookup {
        let path = store.path
        let storeUUID = store.storeUUID
        let catalog = store.catalog
        if let uuid = object.storeUUID, uuid.uppercased() != storeUUID.uppercased() {
            throw StoreQueryError(path: path, .objectOfOtherStore(object: object, storeUUID: storeUUID))
        }
        guard let entity = catalog.entity(named: object.entityName),
            let table = catalog.rootTableName(of: entity.number)
        else {
            throw StoreQueryError(
                path: path, .unknownEntity(name: object.entityName, known: catalog.entities.map(\.name)))
        }
        return try store.read { db in
            let columns = try HistoryStore.columns(of: table, db)
            guard !columns.isEmpty else {
                return .missing(reason: "the store has no table \(table) for \(object.entityName)")
            }
            let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            let row = try db.firstRow(
                "SELECT \(quoted) FROM \"\(table)\" WHERE Z_PK = ?", arguments: [object.primaryKey]
            ) { cursor in
                Dictionary(
                    columns.enumerated().map { ($0.element, cursor.value(Int32($0.offset))) },
                    uniquingKeysWith: { a, _ in a })
            }
            guard let row else { return .missing(reason: "\(table) has no row \(object.primaryKey)") }
            var problems: [String] = []
            var concrete = entity
            if case .integer(let number)?? = row["Z_ENT"] {
                guard let found = catalog.entity(number: number) else {
                    return .missing(
                        reason:
                            "\(table) row \(object.primaryKey) has Z_ENT \(number), which Z_PRIMARYKEY does not know")
                }
                guard catalog.descendants(of: entity.number).contains(number) else {
                    return .missing(
                        reason:
                            """
                            \(table) row \(object.primaryKey) is a \(found.name) \
                            (\(found.name)/p\(object.primaryKey)), not a \(entity.name)
                            """
                    )
                }
                concrete = found
            } else {
                problems.append("\(table) row \(object.primaryKey) has no integer Z_ENT; read as \(entity.name)")
            }
            var version: Int64?
            if case .integer(let v)?? = row["Z_OPT"] { version = v }
            let reference = ObjectReference(entityName: concrete.name, primaryKey: object.primaryKey)
            let properties: [PropertyValue]
            if let model, let naming, model.entity(named: concrete.name) != nil {
                var reader = PropertyReader(
                    store: store, db: db, model: model, naming: naming, table: table, columns: columns, row: row,
                    key: object.primaryKey)
                properties = try reader.properties(of: concrete.name)
                problems += reader.problems
            } else {
                problems.append(
                    model == nil
                        ? "no model: columns are shown by their names"
                        : "the model has no entity \(concrete.name): columns are shown by their names")
                properties = columns.filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0) }.map {
                    PropertyValue(name: $0, column: $0, content: .column(row[$0] ?? nil))
                }
            }
            return .found(
                ObjectState(
                    object: reference, table: table, version: version, properties: properties, problems: problems))
        }
    }
}

/// The columns a model's properties have in a store: computed once per model and store (for a
/// model of Photos' size, longer than reading a row).
struct ModelColumns {
    /// `Z` + the uppercased name of every property of the model: a column named so is that property's.
    let declared: Set<String>
    /// The column Core Data gives each property (numbered in tables shared by entities declaring the same name).
    let names: ColumnNames

    init(_ model: ManagedObjectModel, catalog: EntityCatalog) {
        declared = Set(model.entities.flatMap { $0.properties.map { ColumnNames.base($0.name) } })
        names = ColumnNames(model: model) { catalog.entity(named: $0)?.number }
    }
}

/// Reads the properties of one row through the model (``ObjectLookup/find(_:in:model:)``).
private struct PropertyReader {
    let store: HistoryStore
    let db: Database
    let model: ManagedObjectModel
    let table: String
    let columns: [String]
    let row: [String: StoredValue?]
    let key: Int64
    /// `Z` + the uppercased name of every property of the model: a column named so is that property's.
    let declaredColumns: Set<String>
    /// The column Core Data gives each property (numbered in tables shared by entities declaring the same name).
    let columnNames: ColumnNames
    var problems: [String] = []

    init(
        store: HistoryStore, db: Database, model: ManagedObjectModel, naming: ModelColumns, table: String,
        columns: [String],
        row: [String: StoredValue?], key: Int64
    ) {
        self.store = store
        self.db = db
        self.model = model
        self.table = table
        self.columns = columns
        self.row = row
        self.key = key
        declaredColumns = naming.declared
        columnNames = naming.names
    }

    mutating func properties(of entity: String) throws -> [PropertyValue] {
        var values: [PropertyValue] = []
        for level in model.inheritanceChain(of: entity) {
            for property in level.properties where property.isStored {
                values += try value(of: property, declaredBy: level.name, of: entity)
            }
        }
        // By name, as Xcode's model editor lists them: inherited properties among the entity's own.
        return values.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// The value of `property`, declared by `declaring` (`entity` or one of its superentities); none for a fetched
    /// property.
    private mutating func value(of property: PropertyDescription, declaredBy declaring: String, of entity: String)
        throws -> [PropertyValue]
    {
        switch property.kind {
        case .attribute(let info):
            guard let column = column(for: property.name, declaredBy: declaring, in: columns, table: table) else {
                return [
                    PropertyValue(name: property.name, column: nil, content: .unread("\(table) has no column for it"))
                ]
            }
            return [
                PropertyValue(name: property.name, column: column, content: .attribute(info.type, row[column] ?? nil))
            ]
        case .relationship(let info):
            return [try relationship(property.name, info, declaredBy: declaring, of: entity)]
        case .fetchedProperty, .expression:
            return []
        }
    }

    private mutating func relationship(
        _ name: String, _ info: RelationshipInfo, declaredBy declaring: String, of entity: String
    ) throws -> PropertyValue {
        let destination = info.destinationEntityName ?? "?"
        if !info.isToMany {
            guard let column = column(for: name, declaredBy: declaring, in: columns, table: table) else {
                return PropertyValue(name: name, column: nil, content: .unread("\(table) has no column for it"))
            }
            guard case .integer(let target)?? = row[column] else {
                return PropertyValue(name: name, column: column, content: .toOne(nil))
            }
            // The concrete entity of the destination, when it has subentities: `Z<N>_<NAME>`.
            var entityName = destination
            let upper = String(ColumnNames.base(name).dropFirst())
            let named = columnNames.entityColumn(entity: declaring, property: name).flatMap {
                columns.contains($0) ? $0 : nil
            }
            if let entityColumn = named
                ?? columns.first(where: {
                    $0.hasPrefix("Z") && $0.hasSuffix("_" + upper)
                        && $0.dropFirst().dropLast(upper.count + 1).allSatisfy(\.isNumber) && $0.count > upper.count + 2
                }),
                case .integer(let number)?? = row[entityColumn], let concrete = store.catalog.entity(number: number)
            {
                entityName = concrete.name
            }
            return PropertyValue(
                name: name, column: column, content: .toOne(ObjectReference(entityName: entityName, primaryKey: target))
            )
        }
        guard let inverseName = info.inverseName,
            let inverse = model.allProperties(of: destination).first(where: { $0.name == inverseName })?.relationship,
            let destinationNumber = store.catalog.entity(named: destination)?.number,
            let destinationTable = store.catalog.rootTableName(of: destinationNumber)
        else {
            return PropertyValue(name: name, column: nil, content: .unread("a to-many relationship without an inverse"))
        }
        if inverse.isToMany {
            return try manyToMany(
                name, entity: entity, destination: destination, inverse: inverseName, destinationTable: destinationTable
            )
        }
        // A to-many whose inverse is a to-one: the destination rows whose foreign key is this object.
        let destinationColumns = try HistoryStore.columns(of: destinationTable, db)
        let inverseDeclaring = model.inheritanceChain(of: destination).last { $0.property(named: inverseName) != nil }?
            .name
        guard
            let foreignKey = column(
                for: inverseName, declaredBy: inverseDeclaring, in: destinationColumns, table: destinationTable)
        else {
            return PropertyValue(
                name: name, column: nil,
                content: .unread("\(destinationTable) has no column for \(destination).\(inverseName)"))
        }
        let entities = store.catalog.descendants(of: destinationNumber)
        let condition = "\"\(foreignKey)\" = ? AND Z_ENT IN (\(entities.map(String.init).joined(separator: ", ")))"
        let count =
            try db.firstRow("SELECT COUNT(*) FROM \"\(destinationTable)\" WHERE \(condition)", arguments: [key]) {
                $0.int64(0)
            } ?? 0
        var first: [ObjectReference] = []
        try db.forEachRow(
            """
            SELECT Z_PK, Z_ENT FROM \"\(destinationTable)\" WHERE \(condition) ORDER BY Z_PK LIMIT \
            \(ObjectState.toManyShown)
            """,
            arguments: [key]
        ) { cursor in
            let entity = store.catalog.entity(number: cursor.int64(1))?.name ?? destination
            first.append(ObjectReference(entityName: entity, primaryKey: cursor.int64(0)))
        }
        return PropertyValue(
            name: name, column: "\(destinationTable).\(foreignKey)", content: .toMany(count: Int(count), first: first))
    }

    /// A many-to-many relationship's objects, from its join table: `Z_<a><NAME>` or
    /// `Z_<b><INVERSE>` (a and b: `Z_ENT` of the entities declaring the relationship
    /// and its inverse), whose column `Z_<a><INVERSE>` holds this object's key and
    /// `Z_<b><NAME>` the other's (each maybe numbered, as columns are).
    private mutating func manyToMany(
        _ name: String, entity: String, destination: String, inverse: String,
        destinationTable: String
    ) throws -> PropertyValue {
        guard let a = declaringNumber(of: name, from: entity), let b = declaringNumber(of: inverse, from: destination)
        else {
            return PropertyValue(
                name: name, column: nil,
                content: .unread("a many-to-many relationship whose entities the store does not number"))
        }
        let (upper, inverseUpper) = (ColumnNames.asciiUppercased(name), ColumnNames.asciiUppercased(inverse))
        let tables = Set(try String.fetchAll(db, sql: "SELECT upper(name) FROM sqlite_master WHERE type = 'table'"))
        guard let join = ["Z_\(a)\(upper)", "Z_\(b)\(inverseUpper)"].first(where: tables.contains) else {
            return PropertyValue(
                name: name, column: nil,
                content: .unread(
                    "a many-to-many relationship without its join table (Z_\(a)\(upper) or Z_\(b)\(inverseUpper))"))
        }
        let columns = try HistoryStore.columns(of: join, db)
        func named(_ base: String) -> [String] {
            columns.filter { $0 == base || ($0.hasPrefix(base) && $0.dropFirst(base.count).allSatisfy(\.isNumber)) }
        }
        let mine = named("Z_\(a)\(inverseUpper)")
        let theirs = named("Z_\(b)\(upper)")
        let from: String
        let arguments: StatementArguments
        if mine.count == 1, theirs.count == 1, mine != theirs {
            from =
                """
                FROM \"\(join)\" j JOIN \"\(destinationTable)\" d ON d.Z_PK = j.\"\(theirs[0])\" WHERE \
                j.\"\(mine[0])\" = ?
                """
            arguments = [key]
        } else if name == inverse, mine.count == 1, columns.contains("REFLEXIVE") {
            // A relationship that is its own inverse: a link's two objects are in its column and
            // in REFLEXIVE, either way round.
            let side = mine[0]
            from =
                """
                FROM (SELECT REFLEXIVE AS other FROM \"\(join)\" WHERE \"\(side)\" = ? UNION SELECT \"\(side)\" \
                FROM \"\(join)\" WHERE REFLEXIVE = ?) j 
                """
                + "JOIN \"\(destinationTable)\" d ON d.Z_PK = j.other"
            arguments = [key, key]
        } else {
            return PropertyValue(
                name: name, column: nil, content: .unread("\(join) has no single column for each side"))
        }
        let count = try db.firstRow("SELECT COUNT(*) \(from)", arguments: arguments) { $0.int64(0) } ?? 0
        var first: [ObjectReference] = []
        try db.forEachRow(
            "SELECT d.Z_PK, d.Z_ENT \(from) ORDER BY d.Z_PK LIMIT \(ObjectState.toManyShown)", arguments: arguments
        ) { cursor in
            first.append(
                ObjectReference(
                    entityName: store.catalog.entity(number: cursor.int64(1))?.name ?? destination,
                    primaryKey: cursor.int64(0)))
        }
        return PropertyValue(
            name: name, column: "\(join).\(mine[0])", content: .toMany(count: Int(count), first: first))
    }

    /// `Z_ENT` of the entity in `entity`'s chain that declares `property`.
    private func declaringNumber(of property: String, from entity: String) -> Int64? {
        model.inheritanceChain(of: entity).last { $0.property(named: property) != nil }.flatMap {
            store.catalog.entity(named: $0.name)?.number
        }
    }

    /// The column of property `name` declared by `declaring` in `table`: the one
    /// ``ColumnNames`` gives it when the table has it; else `Z` + its name
    /// uppercased, or the one numbered variant (`ZNAME1`) there is; nil when
    /// there is none.
    private mutating func column(for name: String, declaredBy declaring: String?, in columns: [String], table: String)
        -> String?
    {
        if let declaring, let named = columnNames.column(entity: declaring, property: name), columns.contains(named) {
            return named
        }
        let base = ColumnNames.base(name)
        // `ZNAME1` may also be the column of a property called `name1`.
        let variants = columns.filter {
            $0.hasPrefix(base) && $0.count > base.count && $0.dropFirst(base.count).allSatisfy(\.isNumber)
                && !declaredColumns.contains($0)
        }
        if columns.contains(base) {
            if !variants.isEmpty {
                problems.append(
                    """
                    \(name): \(table) has \(([base] + variants).joined(separator: ", ")) for entities sharing the \
                    table; \(base) is shown
                    """
                )
            }
            return base
        }
        if variants.count == 1 { return variants[0] }
        if variants.count > 1 {
            problems.append(
                "\(name): \(table) has \(variants.joined(separator: ", ")); which is this entity's is not known")
        }
        return nil
    }
}
