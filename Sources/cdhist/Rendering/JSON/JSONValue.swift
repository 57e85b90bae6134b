import Foundation

/// A JSON value with ordered object keys, so output is stable and readable.
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// An object: keys and values in order (parallel arrays; build it with ``object(_:)``).
    case members(keys: [String], values: [JSONValue])

    /// An object from ordered key–value pairs.
    static func object(_ pairs: [(String, JSONValue)]) -> JSONValue {
        .members(keys: pairs.map(\.0), values: pairs.map(\.1))
    }

    /// A string, or `null` for nil.
    /// Writes the value through `sink`, so that a streamed document indents it as its own.
    func write<S: JSONSink>(to sink: inout S) {
        switch self {
        case .null: sink.null()
        case .bool(let b): sink.bool(b)
        case .int(let i): sink.int(i)
        case .double(let d): sink.double(d)
        case .string(let text): sink.string(text)
        case .array(let items):
            sink.beginArray()
            for item in items { item.write(to: &sink) }
            sink.endArray()
        case .members(let keys, let values):
            sink.beginObject()
            for (name, value) in zip(keys, values) {
                sink.key(named: name)
                value.write(to: &sink)
            }
            sink.endObject()
        }
    }

    static func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
    /// An integer, or `null` for nil.
    static func optional(_ i: Int64?) -> JSONValue { i.map { .int($0) } ?? .null }
    static func optional(_ i: Int?) -> JSONValue { i.map { .int(Int64($0)) } ?? .null }
    /// A number, or `null` for nil (non-finite numbers are written as `null` too).
    static func optional(_ d: Double?) -> JSONValue { d.map { .double($0) } ?? .null }

    /// Compact UTF-8 serialization.
    func serialized() -> String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact serialization to `out`.
    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Self.nullBytes
        case .bool(let b): out += b ? Self.trueBytes : Self.falseBytes
        case .int(let i): Self.writeInt(i, to: &out)
        case .double(let d): Self.writeDouble(d, to: &out)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .members(let keys, let values):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in zip(keys, values).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Indented serialization for humans (`--format json` on a terminal).
    func pretty(indent: Int = 0, into out: inout [UInt8]) {
        let pad = Array(repeating: UInt8(ascii: " "), count: indent + 2)
        let closePad = Array(repeating: UInt8(ascii: " "), count: indent)
        switch self {
        case .array(let items) where !items.isEmpty:
            out += Array("[\n".utf8)
            for (i, item) in items.enumerated() {
                out += pad
                item.pretty(indent: indent + 2, into: &out)
                out += Array((i + 1 < items.count ? ",\n" : "\n").utf8)
            }
            out += closePad
            out.append(UInt8(ascii: "]"))
        case .members(let keys, let values) where !keys.isEmpty:
            out += Array("{\n".utf8)
            for (i, (key, value)) in zip(keys, values).enumerated() {
                out += pad
                Self.writeString(key, to: &out)
                out += Array(": ".utf8)
                value.pretty(indent: indent + 2, into: &out)
                out += Array((i + 1 < keys.count ? ",\n" : "\n").utf8)
            }
            out += closePad
            out.append(UInt8(ascii: "}"))
        default:
            write(to: &out)
        }
    }

    static let nullBytes = Array("null".utf8)
    static let trueBytes = Array("true".utf8)
    static let falseBytes = Array("false".utf8)
    private static let hex = Array("0123456789abcdef".utf8)

    /// Whole numbers as integers, others in Swift's shortest round-trip form, non-finite as `null`.
    static func writeDouble(_ d: Double, to out: inout [UInt8]) {
        guard d.isFinite else {
            out += nullBytes
            return
        }
        if d == d.rounded(), abs(d) < 1e15 {
            writeInt(Int64(d), to: &out)
        } else {
            // `d.description`'s bytes, without the String (one per transaction in an export).
            var sink = ASCIISink()
            swap(&sink.bytes, &out)
            d.write(to: &sink)
            swap(&sink.bytes, &out)
        }
    }

    /// Takes what a number writes as bytes: Swift hands a number's ASCII to `_writeASCII`.
    private struct ASCIISink: TextOutputStream {
        var bytes: [UInt8] = []
        mutating func write(_ string: String) { bytes += string.utf8 }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
    }

    /// Decimal digits without an intermediate String.
    static func writeInt(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteCursor.intRoom) { room in
            var digits = ByteCursor(room)
            digits.int(value)
            out.append(contentsOf: digits.written)
        }
    }

    /// A JSON string literal. Most strings need no escaping: they are copied in one go.
    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = s
        string.withUTF8 { utf8 in
            if !needsEscaping(utf8) {
                out.append(contentsOf: utf8)
                return
            }
            for b in utf8 {
                switch b {
                case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20, 0x7F:
                    out += Array("\\u00".utf8)
                    out.append(hex[Int(b >> 4)])
                    out.append(hex[Int(b & 0x0F)])
                default: out.append(b)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `utf8` holds a byte JSON must escape (control, DEL, quote,
    /// backslash), tested eight bytes at a time: most strings need nothing, and
    /// a byte-by-byte test was a tenth of an export's time.
    private static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte of `v` is zero / below `n` (n ≤ 0x80): exact as to whether any is.
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        func hasBelow(_ v: UInt64, _ n: UInt64) -> Bool { (v &- ones &* n) & ~v & highs != 0 }
        var i = 0
        if let base = utf8.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= utf8.count {
                let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if hasBelow(x, 0x20) || hasZero(x ^ (ones &* 0x22)) || hasZero(x ^ (ones &* 0x5C))
                    || hasZero(x ^ (ones &* 0x7F))
                {
                    return true
                }
                i += 8
            }
        }
        while i < utf8.count {
            let b = utf8[i]
            if b < 0x20 || b == 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }
}
