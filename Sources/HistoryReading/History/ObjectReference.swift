import Foundation

/// One managed object, named as Core Data names it: the URI an app logs
/// (`x-coredata://STOREUUID/Note/p67`, also inside an object ID's description
/// `0x… <x-coredata://…/Note/p67>`), or just `Note/p67`.
///
/// Primary keys are unique within the root entity's table, so a superentity's
/// name matches its subentities' objects of that key (`Note/p67` finds a
/// `TextNote` 67).
public struct ObjectReference: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The store UUID the URI names; nil for `Entity/pN`.
    public var storeUUID: String?
    public var entityName: String
    /// `Z_PK` in the root entity's table (`ZENTITYPK` in history).
    public var primaryKey: Int64

    public init(entityName: String, primaryKey: Int64, storeUUID: String? = nil) {
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.storeUUID = storeUUID
    }

    /// Parses `x-coredata://UUID/Entity/pN`, `Entity/pN` or `Entity/N`.
    public init(parsing raw: String) throws {
        var text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        // An object ID's description: `0x8b1c… <x-coredata://UUID/Note/p67>`.
        if let start = text.range(of: "x-coredata:") {
            text = String(text[start.lowerBound...])
            if text.hasSuffix(">") { text.removeLast() }
        }
        var storeUUID: String?
        if text.lowercased().hasPrefix("x-coredata:") {
            let rest = text.dropFirst("x-coredata:".count)
            guard rest.hasPrefix("//") else {
                throw ObjectReferenceError(text: raw, reason: "expected x-coredata://STOREUUID/ENTITY/pN")
            }
            let parts = rest.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3 else {
                throw ObjectReferenceError(text: raw, reason: "expected x-coredata://STOREUUID/ENTITY/pN")
            }
            if parts[0].isEmpty || parts[2].hasPrefix("t") {
                throw ObjectReferenceError(
                    text: raw,
                    reason:
                        """
                        a temporary ID: the object was not saved yet, and history holds only saved objects (log \
                        its objectID after the save)
                        """
                )
            }
            storeUUID = String(parts[0])
            text = parts[1] + "/" + parts[2]
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw ObjectReferenceError(text: raw, reason: "expected ENTITY/pN or x-coredata://STOREUUID/ENTITY/pN")
        }
        var key = parts[1]
        if key.hasPrefix("p") { key = key.dropFirst() }
        guard let pk = Int64(key), pk > 0 else {
            throw ObjectReferenceError(
                text: raw, reason: "'\(parts[1])' is not a primary key (p followed by a number above 0)")
        }
        self.init(entityName: String(parts[0]), primaryKey: pk, storeUUID: storeUUID)
    }

    /// `Entity/pN`.
    public var description: String { "\(entityName)/p\(primaryKey)" }

    /// The URI Core Data gives the object in the store `uuid`.
    public func uri(storeUUID uuid: String) -> String { "x-coredata://\(uuid)/\(entityName)/p\(primaryKey)" }
}

/// Text that names no object.
public struct ObjectReferenceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public var description: String { "'\(text)' is not an object ID: \(reason)" }
}
