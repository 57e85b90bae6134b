import Foundation

/// A read-only view of an `NSKeyedArchiver` archive: its `$objects` table and
/// `$top` entries, with helpers to follow UIDs and decode Foundation's
/// collection and string classes. No class is instantiated; unknown classes
/// are just dictionaries.
public struct KeyedArchive: Sendable {
    /// The archive's object table; index 0 is `$null`.
    public let objects: [PlistValue]
    /// The `$top` dictionary (for example `root`).
    public let top: [String: PlistValue]

    /// Reads an archive from binary or XML plist bytes.
    public init(bytes: [UInt8]) throws {
        try self.init(plist: try PropertyList.decode(bytes).value)
    }

    /// Interprets an already-decoded plist as an archive.
    public init(plist: PlistValue) throws {
        guard let dict = plist.dictionaryValue else {
            throw PlistError.notAKeyedArchive("the top level is not a dictionary")
        }
        guard let objects = dict["$objects"]?.arrayValue else {
            throw PlistError.notAKeyedArchive("no $objects array")
        }
        guard let top = dict["$top"]?.dictionaryValue else {
            throw PlistError.notAKeyedArchive("no $top dictionary")
        }
        if let archiver = dict["$archiver"]?.stringValue, archiver != "NSKeyedArchiver" {
            throw PlistError.notAKeyedArchive("archiver is \(archiver)")
        }
        self.objects = objects
        self.top = top
    }

    /// Follows a UID to its object; `$null` (object 0) and out-of-range UIDs give nil.
    /// Values that are not UIDs are returned as they are.
    public func resolve(_ value: PlistValue?) -> PlistValue? {
        guard let value else { return nil }
        guard case .uid(let index) = value else { return value }
        guard index < UInt64(objects.count) else { return nil }
        let object = objects[Int(index)]
        // Only object 0 is nil, as NSKeyedUnarchiver reads it: a string "$null" elsewhere is that string.
        if index == 0, case .string("$null") = object { return nil }
        return object
    }

    /// The object a `$top` key points at (usually `root`).
    public func topObject(_ key: String = "root") -> PlistValue? {
        resolve(top[key])
    }

    /// The class chain (`$classes`) of an archived object, most derived first.
    public func classChain(of object: PlistValue?) -> [String] {
        guard let classInfo = resolve(object?["$class"]) else { return [] }
        if let chain = classInfo["$classes"]?.arrayValue?.compactMap(\.stringValue), !chain.isEmpty {
            return chain
        }
        return classInfo["$classname"]?.stringValue.map { [$0] } ?? []
    }

    /// The most derived class name of an archived object.
    public func className(of object: PlistValue?) -> String? {
        classChain(of: object).first
    }

    /// The value under `key` of an archived object, with UIDs followed.
    public func value(_ object: PlistValue?, _ key: String) -> PlistValue? {
        resolve(object?[key])
    }

    /// A string, whether stored inline or as an `NSString`/`NSMutableString` object.
    public func string(_ value: PlistValue?) -> String? {
        guard let v = resolve(value) else { return nil }
        if let s = v.stringValue { return s }
        if let inner = resolve(v["NS.string"])?.stringValue { return inner }
        if let bytes = resolve(v["NS.bytes"])?.dataValue { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    /// The elements of an archived `NSArray`/`NSSet` (or an inline array), resolved.
    public func array(_ value: PlistValue?) -> [PlistValue]? {
        guard let v = resolve(value) else { return nil }
        if let inline = v.arrayValue { return inline.compactMap { resolve($0) } }
        guard let refs = v["NS.objects"]?.arrayValue else { return nil }
        return refs.compactMap { resolve($0) }
    }

    /// The entries of an archived `NSDictionary` with string keys, resolved, in archive order.
    public func dictionary(_ value: PlistValue?) -> [(key: String, value: PlistValue)]? {
        guard let v = resolve(value) else { return nil }
        guard let keys = v["NS.keys"]?.arrayValue, let values = v["NS.objects"]?.arrayValue,
            keys.count == values.count
        else { return nil }
        var out: [(key: String, value: PlistValue)] = []
        out.reserveCapacity(keys.count)
        for (k, item) in zip(keys, values) {
            guard let key = string(k), let resolved = resolve(item) else { continue }
            out.append((key, resolved))
        }
        return out
    }
}
