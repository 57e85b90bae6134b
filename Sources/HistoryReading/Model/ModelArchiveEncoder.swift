/// Writes a ``ManagedObjectModel`` as Core Data lays out an archived
/// `NSManagedObjectModel`: each entity carries its inherited properties as
/// copies, relationships name their destination and inverse, attributes
/// their type and `NSFlagsKey`. Used to build model caches for fixtures.
public enum ModelArchiveEncoder {
    private static let entityClass = ["NSEntityDescription", "NSObject"]
    private static let attributeClass = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    private static let relationshipClass = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
    private static let fetchedClass = ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"]
    private static let expressionClass = ["NSExpressionDescription", "NSPropertyDescription", "NSObject"]

    /// The keyed-archive plist of `model`.
    public static func archive(_ model: ManagedObjectModel) -> PlistValue {
        var b = KeyedArchiveBuilder()
        let root = b.reserve()
        var slots: [String: PlistValue] = [:]
        for e in model.entities { slots[e.name] = b.reserve() }
        for e in model.entities {
            guard let slot = slots[e.name] else { continue }
            var props: [String: PlistValue] = [:]
            for p in model.allProperties(of: e.name) {
                props[p.name] = property(p, entitySlot: slot, slots: slots, builder: &b)
            }
            var subs: [String: PlistValue] = [:]
            for name in model.subentityNames(of: e.name) { subs[name] = slots[name] ?? KeyedArchiveBuilder.null }
            var userInfo: [String: PlistValue] = [:]
            for key in e.userInfo.keys.sorted() { userInfo[key] = b.add(string: e.userInfo[key] ?? "") }
            var fields: [String: PlistValue] = [
                "NSEntityName": b.add(string: e.name),
                "NSSuperentity": e.superentityName.flatMap { slots[$0] } ?? KeyedArchiveBuilder.null,
                "NSProperties": b.add(
                    dictionary: props, classChain: ["NSMutableDictionary", "NSDictionary", "NSObject"]),
                "NSSubentities": b.add(
                    dictionary: subs, classChain: ["NSMutableDictionary", "NSDictionary", "NSObject"]),
                "NSUserInfo": b.add(dictionary: userInfo),
                "NSManagedObjectModel": root,
                "NSClassNameForEntity": KeyedArchiveBuilder.null,
            ]
            if e.isAbstract { fields["NSIsAbstract"] = .bool(true) }
            b.set(slot, to: fields, classChain: entityClass)
        }
        var entityMap: [String: PlistValue] = [:]
        for e in model.entities { entityMap[e.name] = slots[e.name] }
        let entities = b.add(dictionary: entityMap)
        let versions = b.add(
            array: model.versionIdentifiers.map { b.add(string: $0) }, classChain: ["NSSet", "NSObject"])
        b.set(
            root,
            to: [
                "NSEntities": entities,
                "NSVersionIdentifiers": versions,
                "NSFetchRequestTemplates": KeyedArchiveBuilder.null,
            ], classChain: ["NSManagedObjectModel", "NSObject"])
        return b.archive(root: root)
    }

    /// The bytes Core Data keeps in `Z_MODELCACHE.Z_CONTENT`: the binary
    /// plist of the archive, raw-DEFLATE compressed.
    public static func modelCache(_ model: ManagedObjectModel) -> [UInt8] {
        RawDeflate.deflate(BinaryPlistWriter.encode(archive(model)))
    }

    private static func property(
        _ p: PropertyDescription, entitySlot: PlistValue,
        slots: [String: PlistValue], builder b: inout KeyedArchiveBuilder
    ) -> PlistValue {
        var fields: [String: PlistValue] = [
            "NSPropertyName": b.add(string: p.name),
            "NSEntity": entitySlot,
        ]
        if p.isTransient { fields["NSIsTransient"] = .bool(true) }
        if p.isOptional { fields["NSIsOptional"] = .bool(true) }
        if p.isIndexedBySpotlight { fields[ModelArchiveDecoder.spotlightKeys[0]] = .bool(true) }
        switch p.kind {
        case .attribute(let a):
            fields["NSAttributeType"] = .integer(a.type.rawValue)
            fields["NSFlagsKey"] = .integer(a.flags)
            var chain = attributeClass
            if a.isDerived { chain.insert("NSDerivedAttributeDescription", at: 0) }
            if a.isComposite { chain.insert("NSCompositeAttributeDescription", at: 0) }
            return b.add(fields, classChain: chain)
        case .relationship(let r):
            fields["NSMaxCount"] = .integer(r.maxCount)
            fields["NSMinCount"] = .integer(r.minCount)
            if r.isOrdered { fields["NSIsOrdered"] = .bool(true) }
            fields["NSDeleteRule"] = .integer(r.deleteRule.rawValue)
            if let d = r.destinationEntityName {
                fields["_NSDestinationEntityName"] = b.add(string: d)
                fields["NSDestinationEntity"] = slots[d] ?? KeyedArchiveBuilder.null
            }
            if let i = r.inverseName { fields["_NSInverseRelationshipName"] = b.add(string: i) }
            return b.add(fields, classChain: relationshipClass)
        case .fetchedProperty:
            return b.add(fields, classChain: fetchedClass)
        case .expression:
            return b.add(fields, classChain: expressionClass)
        }
    }
}
