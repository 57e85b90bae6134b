/// Builds an `NSKeyedArchiver`-shaped archive (`$objects`, `$top`, class
/// entries) from plain values, the way Foundation lays one out: object 0 is
/// `$null`, each class description is stored once and referenced by UID.
public struct KeyedArchiveBuilder: Sendable {
    private var objects: [PlistValue] = [.string("$null")]
    private var classRefs: [String: UInt64] = [:]
    private var stringRefs: [String: UInt64] = [:]

    /// Creates an empty archive.
    public init() {}

    /// The UID of `$null`.
    public static let null = PlistValue.uid(0)

    /// Reserves an object slot to fill later with ``set(_:to:classChain:)`` (for cycles).
    public mutating func reserve() -> PlistValue {
        objects.append(.string("$null"))
        return .uid(UInt64(objects.count - 1))
    }

    /// Stores an object built from `fields` of class `chain` (most derived
    /// first) in a reserved slot.
    public mutating func set(_ slot: PlistValue, to fields: [String: PlistValue], classChain chain: [String]) {
        guard case .uid(let index) = slot, index < UInt64(objects.count) else { return }
        var dict = fields
        dict["$class"] = classRef(chain)
        objects[Int(index)] = .dictionary(dict)
    }

    /// Adds an object of class `chain` and returns its UID.
    public mutating func add(_ fields: [String: PlistValue], classChain chain: [String]) -> PlistValue {
        let slot = reserve()
        set(slot, to: fields, classChain: chain)
        return slot
    }

    /// Adds (or reuses) a string object and returns its UID.
    public mutating func add(string: String) -> PlistValue {
        if let ref = stringRefs[string] { return .uid(ref) }
        objects.append(.string(string))
        let ref = UInt64(objects.count - 1)
        stringRefs[string] = ref
        return .uid(ref)
    }

    /// Adds a plain value (number, data, date) as its own object.
    public mutating func add(value: PlistValue) -> PlistValue {
        objects.append(value)
        return .uid(UInt64(objects.count - 1))
    }

    /// Adds an `NSArray` (or a subclass named in `chain`) of UIDs.
    public mutating func add(array items: [PlistValue], classChain chain: [String] = ["NSArray", "NSObject"])
        -> PlistValue
    {
        add(["NS.objects": .array(items)], classChain: chain)
    }

    /// Adds an `NSDictionary` with string keys; keys are written in byte order.
    public mutating func add(
        dictionary entries: [String: PlistValue],
        classChain chain: [String] = ["NSDictionary", "NSObject"]
    ) -> PlistValue {
        let keys = entries.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let keyRefs = keys.map { add(string: $0) }
        let valueRefs = keys.map { entries[$0] ?? Self.null }
        return add(["NS.keys": .array(keyRefs), "NS.objects": .array(valueRefs)], classChain: chain)
    }

    /// The finished archive with `root` as its `$top` root.
    public func archive(root: PlistValue) -> PlistValue {
        .dictionary([
            "$version": .integer(100000),
            "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(["root": root]),
            "$objects": .array(objects),
        ])
    }

    private mutating func classRef(_ chain: [String]) -> PlistValue {
        let name = chain.first ?? "NSObject"
        if let ref = classRefs[name] { return .uid(ref) }
        objects.append(
            .dictionary([
                "$classname": .string(name),
                "$classes": .array(chain.map { .string($0) }),
            ]))
        let ref = UInt64(objects.count - 1)
        classRefs[name] = ref
        return .uid(ref)
    }
}
