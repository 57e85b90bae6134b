/// Receives a JSON document in order. A presenter writes each record once,
/// generically; ``JSONBytes`` streams it as compact UTF-8 (the export's hot
/// path: no tree, no intermediate strings) and ``JSONTree`` builds a
/// ``JSONValue`` for documents and pretty output. Both give the same JSON.
protocol JSONSink {
    mutating func beginObject()
    mutating func endObject()
    mutating func beginArray()
    mutating func endArray()
    /// The next member's name (inside an object), as written in the source: never
    /// anything JSON escapes (the export writes it as it is, millions of times).
    mutating func key(_ name: StaticString)
    /// The next member's name when it is data (a property, a store's identifier).
    mutating func key(named name: String)
    mutating func null()
    mutating func bool(_ value: Bool)
    mutating func int(_ value: Int64)
    /// Non-finite numbers are written as `null`.
    mutating func double(_ value: Double)
    mutating func string(_ value: String)
    /// A string of ASCII bytes that JSON does not escape (a timestamp).
    mutating func asciiString(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// A record written once for every sink: NDJSON lines stream it to bytes,
/// documents and pretty output take its value tree.
protocol JSONRecord {
    /// One JSON object; `format` adds the `"format"` tag as its first member.
    func write<S: JSONSink>(format: String?, to s: inout S)
}

extension JSONRecord {
    var json: JSONValue { JSONTree.build { write(format: nil, to: &$0) } }
}

extension JSONSink {
    mutating func string(_ value: String?) { if let value { string(value) } else { null() } }
    mutating func int(_ value: Int64?) { if let value { int(value) } else { null() } }
    mutating func int(_ value: Int?) { if let value { int(Int64(value)) } else { null() } }
    mutating func double(_ value: Double?) { if let value { double(value) } else { null() } }

    /// `"name": <value>` members.
    mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        string(value)
    }
    mutating func member(_ name: StaticString, _ value: Int64?) {
        key(name)
        int(value)
    }
    mutating func member(_ name: StaticString, _ value: Int?) {
        key(name)
        int(value)
    }
    mutating func member(_ name: StaticString, _ value: Double?) {
        key(name)
        double(value)
    }
    mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }
}

/// JSON as bytes: compact, or indented as ``JSONValue/pretty(indent:into:)``
/// indents. A record too large to hold (a transaction of a million changes)
/// is written out in pieces from ``bytes`` as it grows.
struct JSONBytes: JSONSink {
    var bytes: [UInt8] = []
    /// The indentation of the value's first line when pretty (nil: compact).
    private let indent: Int?
    /// Open containers.
    private var depth = 0
    /// A value was written in the current container (so the next one needs a comma, and its end a new line).
    private var needsComma = false
    /// A member name was just written: its value goes on the same line.
    private var afterKey = false

    init(capacity: Int = 0, prettyIndent: Int? = nil) {
        bytes.reserveCapacity(capacity)
        indent = prettyIndent
    }

    /// Empties the buffer, keeping its storage, for the next record.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        depth = 0
        needsComma = false
        afterKey = false
    }

    /// Starts the next record after the bytes of those before (NDJSON lines gathered in one buffer).
    mutating func endRecord() {
        depth = 0
        needsComma = false
        afterKey = false
    }

    private mutating func newline() {
        guard let indent else { return }
        bytes.append(0x0A)
        bytes += repeatElement(UInt8(ascii: " "), count: indent + 2 * depth)
    }

    /// The comma, and when pretty the new line, before a value or member name.
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        if afterKey {
            afterKey = false
        } else if depth > 0 {
            newline()
        }
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        depth += 1
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if needsComma { newline() }
        bytes.append(bracket)
        needsComma = true
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        if indent != nil { bytes.append(UInt8(ascii: " ")) }
        needsComma = false
        afterKey = true
    }

    mutating func key(named name: String) {
        separate()
        JSONValue.writeString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if indent != nil { bytes.append(UInt8(ascii: " ")) }
        needsComma = false
        afterKey = true
    }

    /// A value `write` appends as it is: compact JSON only (it is not indented).
    mutating func compactValue(_ write: (inout [UInt8]) -> Void) {
        separate()
        write(&bytes)
        needsComma = true
    }

    /// Compact JSON `value` as it is (one value, or members inside an object).
    mutating func compactValue(_ value: [UInt8]) {
        separate()
        bytes += value
        needsComma = true
    }

    mutating func null() {
        separate()
        bytes += JSONValue.nullBytes
        needsComma = true
    }
    mutating func bool(_ value: Bool) {
        separate()
        bytes += value ? JSONValue.trueBytes : JSONValue.falseBytes
        needsComma = true
    }
    mutating func int(_ value: Int64) {
        separate()
        JSONValue.writeInt(value, to: &bytes)
        needsComma = true
    }
    mutating func double(_ value: Double) {
        separate()
        JSONValue.writeDouble(value, to: &bytes)
        needsComma = true
    }
    mutating func string(_ value: String) {
        separate()
        JSONValue.writeString(value, to: &bytes)
        needsComma = true
    }

    mutating func asciiString(_ value: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }
}

/// Builds a ``JSONValue``.
struct JSONTree: JSONSink {
    /// An open object (with a key per value) or array. A struct mutated in place in ``stack``:
    /// an enum's payload, bound out and put back, was copied on every value (quadratic).
    private struct Frame {
        var isObject: Bool
        var keys: [String] = []
        var values: [JSONValue] = []
    }
    private var stack: [Frame] = []
    /// The member name each open container will be added under.
    private var containerKeys: [String?] = []
    private var pendingKey: String?
    /// The finished value (the last top-level value written).
    private(set) var value: JSONValue = .null

    private mutating func add(_ v: JSONValue) {
        guard !stack.isEmpty else {
            value = v
            return
        }
        let top = stack.count - 1
        if stack[top].isObject { stack[top].keys.append(pendingKey ?? "") }
        stack[top].values.append(v)
        pendingKey = nil
    }

    private mutating func begin(_ frame: Frame) {
        containerKeys.append(pendingKey)
        pendingKey = nil
        stack.append(frame)
    }

    mutating func beginObject() { begin(Frame(isObject: true)) }
    mutating func beginArray() { begin(Frame(isObject: false)) }

    mutating func endObject() {
        guard let frame = stack.popLast(), frame.isObject else { return }
        pendingKey = containerKeys.popLast() ?? nil
        add(.members(keys: frame.keys, values: frame.values))
    }

    mutating func endArray() {
        guard let frame = stack.popLast(), !frame.isObject else { return }
        pendingKey = containerKeys.popLast() ?? nil
        add(.array(frame.values))
    }

    mutating func key(_ name: StaticString) { pendingKey = name.description }
    mutating func key(named name: String) { pendingKey = name }
    mutating func null() { add(.null) }
    mutating func bool(_ value: Bool) { add(.bool(value)) }
    mutating func int(_ value: Int64) { add(.int(value)) }
    mutating func double(_ value: Double) { add(.double(value)) }
    mutating func string(_ value: String) { add(.string(value)) }
    mutating func asciiString(_ bytes: UnsafeBufferPointer<UInt8>) {
        add(.string(String(decoding: bytes, as: UTF8.self)))
    }

    /// The value `write` produces.
    static func build(_ write: (inout JSONTree) -> Void) -> JSONValue {
        var tree = JSONTree()
        write(&tree)
        return tree.value
    }
}
