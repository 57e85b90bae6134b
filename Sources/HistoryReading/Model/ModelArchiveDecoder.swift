/// Turns an `NSKeyedArchiver` archive of an `NSManagedObjectModel` (the
/// content of `Z_MODELCACHE` after inflating, or a compiled `.mom`) into a
/// ``ManagedObjectModel``.
///
/// Core Data archives every entity with its inherited properties copied in;
/// the decoder keeps only the properties each entity declares itself, so
/// the inheritance walk of ``SlotLayout`` sees each property once.
public enum ModelArchiveDecoder {
    /// Decodes the model in `archive`; `source` names it in errors.
    public static func decode(_ archive: KeyedArchive, source: String) throws -> ManagedObjectModel {
        guard let root = archive.topObject() else {
            throw ModelError.undecodable(source: source, reason: "the archive has no root object")
        }
        let rootClasses = archive.classChain(of: root)
        guard rootClasses.contains("NSManagedObjectModel") else {
            let name = rootClasses.first ?? "unknown"
            throw ModelError.undecodable(
                source: source, reason: "the archived object is a \(name), not an NSManagedObjectModel")
        }
        let entityObjects = entities(in: archive, root: root)
        var decoded: [String: (entity: EntityDescription, all: [PropertyDescription])] = [:]
        for object in entityObjects {
            guard let name = archive.string(archive.value(object, "NSEntityName")) else { continue }
            let superName = archive.string(archive.value(archive.value(object, "NSSuperentity"), "NSEntityName"))
            var userInfo: [String: String] = [:]
            for (key, value) in archive.dictionary(archive.value(object, "NSUserInfo")) ?? [] {
                if let s = archive.string(value) { userInfo[key] = s }
            }
            let props = namedObjects(archive, archive.value(object, "NSProperties"))
                .compactMap { property(archive, name: $0.key, object: $0.value) }
            let entity = EntityDescription(
                name: name, superentityName: superName,
                isAbstract: archive.value(object, "NSIsAbstract")?.boolValue ?? false,
                properties: props, userInfo: userInfo)
            decoded[name] = (entity, props)
        }
        guard !decoded.isEmpty || entityObjects.isEmpty else {
            throw ModelError.undecodable(source: source, reason: "no entity has a name")
        }
        // Keep only the properties each entity declares itself.
        var entities: [EntityDescription] = []
        for (_, item) in decoded {
            var entity = item.entity
            if let superName = entity.superentityName, let parent = decoded[superName] {
                let inherited = Set(parent.all.map(\.name))
                entity.properties = entity.properties.filter { !inherited.contains($0.name) }
            }
            entities.append(entity)
        }
        let versions = (archive.array(archive.value(root, "NSVersionIdentifiers")) ?? []).compactMap {
            archive.string($0)
        }
        return ManagedObjectModel(entities: entities, versionIdentifiers: versions)
    }

    /// The entity objects of the model, whatever dictionary class holds them.
    private static func entities(in archive: KeyedArchive, root: PlistValue) -> [PlistValue] {
        let holder = archive.value(root, "NSEntities")
        let found = namedObjects(archive, holder).map(\.value)
        if !found.isEmpty { return found }
        return archive.objects.filter { archive.classChain(of: $0).contains("NSEntityDescription") }
    }

    /// Entries of an `NSDictionary` or an `NSKnownKeysDictionary1` (whose
    /// values are an array beside a key mapping).
    private static func namedObjects(_ archive: KeyedArchive, _ holder: PlistValue?) -> [(
        key: String, value: PlistValue
    )] {
        if let entries = archive.dictionary(holder) { return entries }
        guard let values = archive.array(archive.value(holder, "values")) else { return [] }
        let keys = (archive.array(archive.value(archive.value(holder, "searchMapping"), "keys")) ?? [])
            .compactMap { archive.string($0) }
        return values.enumerated().map { index, value in
            let name =
                archive.string(archive.value(value, "NSEntityName"))
                ?? archive.string(archive.value(value, "NSPropertyName"))
                ?? (index < keys.count ? keys[index] : "")
            return (name, value)
        }
    }

    /// The keys under which a property's "Index in Spotlight" is archived (`isIndexedBySpotlight`):
    /// none of the real stores' models sets it, so both spellings Core Data's keys follow are read.
    static let spotlightKeys = ["NSIndexedBySpotlight", "NSIsIndexedBySpotlight"]

    private static func property(_ archive: KeyedArchive, name: String, object: PlistValue) -> PropertyDescription? {
        var object = object
        var classes = archive.classChain(of: object)
        if classes.contains("_NSPropertyDescriptionProxy"),
            let underlying = archive.value(object, "NSUnderlyingProperty")
        {
            object = underlying
            classes = archive.classChain(of: object)
        }
        let propertyName = archive.string(archive.value(object, "NSPropertyName")) ?? name
        let isTransient = archive.value(object, "NSIsTransient")?.boolValue ?? false
        let isOptional = archive.value(object, "NSIsOptional")?.boolValue ?? false
        let kind: PropertyKind
        if classes.contains("NSRelationshipDescription") {
            let destination =
                archive.string(archive.value(object, "_NSDestinationEntityName"))
                ?? archive.string(archive.value(archive.value(object, "NSDestinationEntity"), "NSEntityName"))
            let inverse =
                archive.string(archive.value(object, "_NSInverseRelationshipName"))
                ?? archive.string(archive.value(archive.value(object, "NSInverseRelationship"), "NSPropertyName"))
            kind = .relationship(
                RelationshipInfo(
                    destinationEntityName: destination, inverseName: inverse,
                    maxCount: archive.value(object, "NSMaxCount")?.integerValue ?? 0,
                    minCount: archive.value(object, "NSMinCount")?.integerValue ?? 0,
                    isOrdered: archive.value(object, "NSIsOrdered")?.boolValue ?? false,
                    deleteRule: archive.value(object, "NSDeleteRule")?.integerValue.flatMap(DeleteRule.init(rawValue:))
                        ?? .nullify))
        } else if classes.contains("NSAttributeDescription") {
            kind = .attribute(
                AttributeInfo(
                    type: AttributeType(rawValue: archive.value(object, "NSAttributeType")?.integerValue ?? 0),
                    flags: archive.value(object, "NSFlagsKey")?.integerValue ?? 0,
                    isDerived: classes.contains("NSDerivedAttributeDescription"),
                    isComposite: classes.contains("NSCompositeAttributeDescription")))
        } else if classes.contains("NSFetchedPropertyDescription") {
            kind = .fetchedProperty
        } else if classes.contains("NSExpressionDescription") {
            kind = .expression
        } else {
            return nil
        }
        let spotlight = Self.spotlightKeys.contains { archive.value(object, $0)?.boolValue ?? false }
        return PropertyDescription(
            name: propertyName, kind: kind, isTransient: isTransient, isOptional: isOptional,
            isIndexedBySpotlight: spotlight)
    }
}
