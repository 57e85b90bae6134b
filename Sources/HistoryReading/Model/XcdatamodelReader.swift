import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the `contents` XML of an Xcode `.xcdatamodel` into a ``ManagedObjectModel``.
///
/// Entities list only the properties they declare; `parentEntity` gives the
/// superentity. Attribute types use the editor's names (`Integer 64`, …);
/// `preserveAfterDeletion="YES"` sets the tombstone flag and
/// `transient="YES"` the transient flag.
public enum XcdatamodelReader {
    /// Parses `contents` XML bytes; `source` names the file in errors.
    public static func read(_ bytes: [UInt8], source: String) throws -> ManagedObjectModel {
        if let problem = XMLText.problem(bytes) {
            throw ModelError.undecodable(source: source, reason: "XML: \(problem)")
        }
        let collector = Collector()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = collector
        guard parser.parse() else {
            let detail = collector.failure ?? parser.parserError.map { "\($0)" } ?? "unreadable XML"
            throw ModelError.undecodable(source: source, reason: "XML: \(detail)")
        }
        if let failure = collector.failure {
            throw ModelError.undecodable(source: source, reason: failure)
        }
        guard collector.sawModel else {
            throw ModelError.undecodable(source: source, reason: "no <model> element")
        }
        return ManagedObjectModel(entities: collector.entities)
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var entities: [EntityDescription] = []
        var sawModel = false
        var failure: String?
        private var current: EntityDescription?
        private var depthInProperty = 0

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
            qualifiedName: String?, attributes a: [String: String] = [:]
        ) {
            switch name {
            case "model":
                sawModel = true
            case "entity":
                guard let entityName = a["name"], !entityName.isEmpty else {
                    failure = "an <entity> has no name"
                    parser.abortParsing()
                    return
                }
                current = EntityDescription(
                    name: entityName, superentityName: a["parentEntity"],
                    isAbstract: a["isAbstract"] == "YES", properties: [])
            case "attribute", "compositeAttribute":
                depthInProperty += 1
                // Elements of a composite attribute are not properties of the entity.
                guard depthInProperty == 1, let propName = a["name"] else { return }
                let type =
                    name == "compositeAttribute"
                    ? .composite : AttributeType(name: a["attributeType"] ?? "Undefined") ?? .undefined
                let flags: Int64 = a["preserveAfterDeletion"] == "YES" ? AttributeInfo.preserveAfterDeletionFlag : 0
                let info = AttributeInfo(
                    type: type, flags: flags, isDerived: a["derived"] == "YES",
                    isComposite: name == "compositeAttribute")
                add(
                    PropertyDescription(
                        name: propName, kind: .attribute(info),
                        isTransient: a["transient"] == "YES", isOptional: a["optional"] == "YES",
                        isIndexedBySpotlight: a["spotlightIndexingEnabled"] == "YES"))
            case "relationship":
                guard let propName = a["name"] else { return }
                let toMany = a["toMany"] == "YES"
                let maxCount = a["maxCount"].flatMap { Int64($0) } ?? (toMany ? 0 : 1)
                let info = RelationshipInfo(
                    destinationEntityName: a["destinationEntity"], inverseName: a["inverseName"],
                    maxCount: toMany && maxCount == 1 ? 0 : maxCount,
                    minCount: a["minCount"].flatMap { Int64($0) } ?? 0,
                    isOrdered: a["ordered"] == "YES",
                    deleteRule: a["deletionRule"].flatMap(DeleteRule.init(word:)) ?? .nullify)
                add(
                    PropertyDescription(
                        name: propName, kind: .relationship(info),
                        isTransient: a["transient"] == "YES", isOptional: a["optional"] == "YES",
                        isIndexedBySpotlight: a["spotlightIndexingEnabled"] == "YES"))
            case "fetchedProperty":
                guard let propName = a["name"] else { return }
                add(PropertyDescription(name: propName, kind: .fetchedProperty))
            case "entry":
                if depthInProperty == 0, let key = a["key"], let value = a["value"] { current?.userInfo[key] = value }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "attribute", "compositeAttribute":
                depthInProperty -= 1
            case "entity":
                if let e = current {
                    entities.append(
                        EntityDescription(
                            name: e.name, superentityName: e.superentityName, isAbstract: e.isAbstract,
                            properties: e.properties, userInfo: e.userInfo))
                }
                current = nil
            default:
                break
            }
        }

        private func add(_ p: PropertyDescription) {
            current?.properties.append(p)
        }
    }
}
