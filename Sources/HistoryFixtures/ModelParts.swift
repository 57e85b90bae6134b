import HistoryKit

/// The properties the generated stores' models are made of.
enum ModelParts {
    /// An attribute of `type`; `preserve`: kept in the tombstone when its object is deleted.
    static func attribute(_ name: String, _ type: AttributeType, preserve: Bool = false) -> PropertyDescription {
        PropertyDescription(
            name: name,
            kind: .attribute(AttributeInfo(type: type, flags: preserve ? AttributeInfo.preserveAfterDeletionFlag : 0)))
    }

    /// A relationship to `destination` whose inverse is `inverse`, unordered.
    static func relationship(_ name: String, _ destination: String, inverse: String, toMany: Bool)
        -> PropertyDescription
    {
        PropertyDescription(
            name: name,
            kind: .relationship(
                RelationshipInfo(
                    destinationEntityName: destination, inverseName: inverse, maxCount: toMany ? 0 : 1, isOrdered: false
                )))
    }
}
