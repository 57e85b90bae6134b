/// A Core Data model as far as history decoding needs it: entities, their
/// inheritance and their properties, whatever file it came from.
public struct ManagedObjectModel: Equatable, Sendable {
    /// Entities sorted by name.
    public let entities: [EntityDescription]
    /// `NSVersionIdentifiers` of the model, sorted.
    public let versionIdentifiers: [String]

    /// A model of `entities` (kept sorted by name).
    public init(entities: [EntityDescription], versionIdentifiers: [String] = []) {
        self.entities = entities.sorted { $0.name < $1.name }
        self.versionIdentifiers = versionIdentifiers.sorted()
        var index: [String: Int] = [:]
        var children: [String: [String]] = [:]
        for (i, e) in self.entities.enumerated() {
            if index[e.name] == nil { index[e.name] = i }
            if let s = e.superentityName { children[s, default: []].append(e.name) }
        }
        self.index = index
        self.children = children
    }

    private let index: [String: Int]
    private let children: [String: [String]]

    /// Models are equal when their entities and version identifiers are.
    public static func == (a: ManagedObjectModel, b: ManagedObjectModel) -> Bool {
        a.entities == b.entities && a.versionIdentifiers == b.versionIdentifiers
    }

    /// The entity called `name`.
    public func entity(named name: String) -> EntityDescription? {
        index[name].map { entities[$0] }
    }

    /// The chain from the root entity down to `name` (inclusive); empty when
    /// `name` is unknown. A superentity cycle or a missing superentity ends
    /// the chain.
    public func inheritanceChain(of name: String) -> [EntityDescription] {
        var chain: [EntityDescription] = []
        var seen: Set<String> = []
        var current = entity(named: name)
        while let e = current, !seen.contains(e.name) {
            seen.insert(e.name)
            chain.insert(e, at: 0)
            current = e.superentityName.flatMap { entity(named: $0) }
        }
        return chain
    }

    /// Names of the direct subentities of `name`.
    public func subentityNames(of name: String) -> [String] {
        children[name] ?? []
    }

    /// Every property of `name`, inherited ones included (root first).
    public func allProperties(of name: String) -> [PropertyDescription] {
        inheritanceChain(of: name).flatMap(\.properties)
    }
}

/// One entity of a model.
public struct EntityDescription: Equatable, Sendable {
    public var name: String
    /// The direct superentity, if any.
    public var superentityName: String?
    public var isAbstract: Bool
    /// Properties this entity declares itself (not inherited ones), sorted by
    /// name byte-wise.
    public var properties: [PropertyDescription]
    /// The entity's userInfo (string values only).
    public var userInfo: [String: String]

    /// An entity declaring `properties` itself (inherited ones belong to the superentity).
    public init(
        name: String, superentityName: String? = nil, isAbstract: Bool = false,
        properties: [PropertyDescription], userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.superentityName = superentityName
        self.isAbstract = isAbstract
        self.properties = properties.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        self.userInfo = userInfo
    }

    /// The declared property called `name`.
    public func property(named name: String) -> PropertyDescription? {
        properties.first { $0.name == name }
    }
}

/// One property of an entity.
public struct PropertyDescription: Equatable, Sendable {
    public var name: String
    public var kind: PropertyKind
    public var isTransient: Bool
    public var isOptional: Bool
    /// "Index in Spotlight": an app's `NSCoreDataCoreSpotlightDelegate` indexes the value, reading
    /// history to follow its changes.
    public var isIndexedBySpotlight: Bool

    /// A property of the given kind.
    public init(
        name: String, kind: PropertyKind, isTransient: Bool = false, isOptional: Bool = true,
        isIndexedBySpotlight: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.isTransient = isTransient
        self.isOptional = isOptional
        self.isIndexedBySpotlight = isIndexedBySpotlight
    }

    /// The attribute details, when this is an attribute.
    public var attribute: AttributeInfo? {
        if case .attribute(let a) = kind { return a }
        return nil
    }

    /// The relationship details, when this is a relationship.
    public var relationship: RelationshipInfo? {
        if case .relationship(let r) = kind { return r }
        return nil
    }

    /// Whether the property has a column (and so a ZCOLUMNS slot): attributes
    /// and relationships that are not transient.
    public var isStored: Bool {
        switch kind {
        case .attribute, .relationship: return !isTransient
        case .fetchedProperty, .expression: return false
        }
    }
}

/// What kind of property it is.
public enum PropertyKind: Equatable, Sendable {
    case attribute(AttributeInfo)
    case relationship(RelationshipInfo)
    /// A fetched property: no column.
    case fetchedProperty
    /// An `NSExpressionDescription`: no column.
    case expression
}

/// Details of an attribute.
public struct AttributeInfo: Equatable, Sendable {
    public var type: AttributeType
    /// The archived `NSFlagsKey` bit set.
    public var flags: Int64
    /// Derived (`NSDerivedAttributeDescription`): how it takes slots is not established.
    public var isDerived: Bool
    /// Composite (`NSCompositeAttributeDescription`): how it takes slots is not established.
    public var isComposite: Bool

    /// The bit of `NSFlagsKey` meaning "Preserve After Deletion".
    public static let preserveAfterDeletionFlag: Int64 = 0x10

    /// Attribute details; `flags` is the archived `NSFlagsKey`.
    public init(type: AttributeType, flags: Int64 = 0, isDerived: Bool = false, isComposite: Bool = false) {
        self.type = type
        self.flags = flags
        self.isDerived = isDerived
        self.isComposite = isComposite
    }

    /// Whether the attribute's value is kept in a tombstone when its object is deleted.
    public var preservesValueInHistoryOnDeletion: Bool {
        flags & Self.preserveAfterDeletionFlag != 0
    }
}

/// `NSAttributeType` raw values.
public enum AttributeType: Equatable, Hashable, Sendable {
    case undefined, integer16, integer32, integer64, decimal, double, float, string
    case boolean, date, binaryData, uuid, uri, transformable, objectID, composite
    case other(Int64)

    /// Maps Core Data's `NSAttributeType` number.
    public init(rawValue: Int64) {
        switch rawValue {
        case 0: self = .undefined
        case 100: self = .integer16
        case 200: self = .integer32
        case 300: self = .integer64
        case 400: self = .decimal
        case 500: self = .double
        case 600: self = .float
        case 700: self = .string
        case 800: self = .boolean
        case 900: self = .date
        case 1000: self = .binaryData
        case 1100: self = .uuid
        case 1200: self = .uri
        case 1800: self = .transformable
        case 2000: self = .objectID
        case 2100: self = .composite
        default: self = .other(rawValue)
        }
    }

    /// Core Data's `NSAttributeType` number.
    public var rawValue: Int64 {
        switch self {
        case .undefined: return 0
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binaryData: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        case .objectID: return 2000
        case .composite: return 2100
        case .other(let v): return v
        }
    }

    /// The name Xcode's model editor uses (`Integer 64`, `String`, …).
    public var name: String {
        switch self {
        case .undefined: return "Undefined"
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .objectID: return "ObjectID"
        case .composite: return "Composite"
        case .other(let v): return "Type \(v)"
        }
    }

    /// Parses an Xcode model editor name.
    public init?(name: String) {
        let all: [AttributeType] = [
            .undefined, .integer16, .integer32, .integer64, .decimal, .double, .float,
            .string, .boolean, .date, .binaryData, .uuid, .uri, .transformable,
            .objectID, .composite,
        ]
        guard let match = all.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}

/// Details of a relationship.
public struct RelationshipInfo: Equatable, Sendable {
    public var destinationEntityName: String?
    public var inverseName: String?
    /// `NSMaxCount`: 1 for a to-one, 0 (unbounded) or more for a to-many.
    public var maxCount: Int64
    public var minCount: Int64
    public var isOrdered: Bool
    /// What deleting the source object does to its destination objects.
    public var deleteRule: DeleteRule

    /// Relationship details; `maxCount` 1 means to-one.
    public init(
        destinationEntityName: String?, inverseName: String?, maxCount: Int64,
        minCount: Int64 = 0, isOrdered: Bool = false, deleteRule: DeleteRule = .nullify
    ) {
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.maxCount = maxCount
        self.minCount = minCount
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
    }

    /// Core Data's rule: a relationship is to-many unless its maximum count is 1.
    public var isToMany: Bool { maxCount != 1 }
}

/// A relationship's delete rule (`NSDeleteRule`, Core Data's numbering).
public enum DeleteRule: Int64, Equatable, Sendable {
    case noAction = 0
    case nullify = 1
    case cascade = 2
    case deny = 3

    /// The rule of an archived number, or of a `.xcdatamodel`'s `deletionRule` word.
    init?(word: String) {
        switch word {
        case "No Action": self = .noAction
        case "Nullify": self = .nullify
        case "Cascade": self = .cascade
        case "Deny": self = .deny
        default: return nil
        }
    }

    /// The word a `.xcdatamodel` uses.
    public var word: String {
        switch self {
        case .noAction: return "No Action"
        case .nullify: return "Nullify"
        case .cascade: return "Cascade"
        case .deny: return "Deny"
        }
    }
}
