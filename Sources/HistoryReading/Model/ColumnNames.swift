/// The SQLite column Core Data gives each stored attribute and to-one
/// relationship: `Z` + the name in capitals, numbered (`ZTITLE1`, `ZTITLE2`)
/// when entities sharing a table declare the same name.
///
/// Core Data names the columns of one table (an entity and all its
/// subentities) with one counter, visiting the entities depth first from the
/// root, subentities in case-insensitive name order (the order in which it
/// numbers them, so `Z_ENT` ascends along it), each entity's own attributes
/// before its to-one relationships. The first entity to use a name gets it
/// bare; each later one the next free number. A to-one relationship whose
/// destination has subentities also takes `Z<destination Z_ENT>_<NAME>`.
/// (Established on Notes' `ZICCLOUDSYNCINGOBJECT`, where ICAttachment's title
/// is `ZTITLE`, ICNote's `ZTITLE1` and ICFolder's `ZTITLE2`, and on Photos'
/// `ZGENERICALBUM`; many-to-many join columns are not named here.)
public struct ColumnNames: Sendable {
    /// Column by declaring entity, then property name.
    private var columns: [String: [String: String]] = [:]
    /// For to-one relationships to an entity with subentities: the column of the destination's `Z_ENT`.
    private var entityColumns: [String: [String: String]] = [:]

    /// The columns of every table of `model`; `entityNumber` gives `Z_ENT`
    /// (from `Z_PRIMARYKEY`), for the entity columns of to-one relationships.
    public init(model: ManagedObjectModel, entityNumber: (String) -> Int64?) {
        let names = Set(model.entities.map(\.name))
        for root in model.entities where root.superentityName.map({ !names.contains($0) }) ?? true {
            var counter = NameCounter()
            var visited: Set<String> = []
            name(root.name, in: model, counter: &counter, visited: &visited, entityNumber: entityNumber)
        }
    }

    /// The column of `property` as declared by `entity` (the entity that declares
    /// it, not one inheriting it); nil when it has none (to-many, transient).
    public func column(entity: String, property: String) -> String? {
        columns[entity]?[property]
    }

    /// The column holding the destination's `Z_ENT` for to-one `property` declared by
    /// `entity`, when the destination has subentities.
    public func entityColumn(entity: String, property: String) -> String? {
        entityColumns[entity]?[property]
    }

    /// `Z` + `name` with a–z in capitals (other characters as they are, as Core Data does).
    public static func base(_ name: String) -> String {
        "Z" + asciiUppercased(name)
    }

    /// `text` with a–z in capitals and every other character as it is: how Core Data names
    /// tables and columns, and the only letters SQLite compares without case.
    public static func asciiUppercased(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { ("a"..."z").contains($0) ? Unicode.Scalar(UInt8($0.value - 32)) : $0 }))
    }

    private mutating func name(
        _ entityName: String, in model: ManagedObjectModel, counter: inout NameCounter,
        visited: inout Set<String>, entityNumber: (String) -> Int64?
    ) {
        // A cycle of superentities in a damaged model is visited once.
        guard let entity = model.entity(named: entityName), visited.insert(entityName).inserted else { return }
        var own: [String: String] = [:]
        for property in entity.properties where property.isStored {
            if case .attribute = property.kind { own[property.name] = counter.unique(Self.base(property.name)) }
        }
        for property in entity.properties where property.isStored {
            guard case .relationship(let info) = property.kind, !info.isToMany else { continue }
            own[property.name] = counter.unique(Self.base(property.name))
            if let destination = info.destinationEntityName, !model.subentityNames(of: destination).isEmpty,
                let number = entityNumber(destination)
            {
                entityColumns[entityName, default: [:]][property.name] = counter.unique(
                    "Z\(number)_" + String(Self.base(property.name).dropFirst()))
            }
        }
        columns[entityName] = own
        let children = model.subentityNames(of: entityName).sorted {
            let (a, b) = ($0.lowercased(), $1.lowercased())
            return a != b ? a < b : $0 < $1
        }
        for child in children {
            name(child, in: model, counter: &counter, visited: &visited, entityNumber: entityNumber)
        }
    }

    /// One table's names: the last number given to each base name.
    private struct NameCounter {
        private var last: [String: Int] = [:]

        mutating func unique(_ base: String) -> String {
            guard let used = last[base] else {
                last[base] = 0
                return base
            }
            var n = used + 1
            while last["\(base)\(n)"] != nil { n += 1 }
            last[base] = n
            return "\(base)\(n)"
        }
    }
}
