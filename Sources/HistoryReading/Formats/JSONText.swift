/// A JSON value as read from text: objects keep their members in order, and
/// an integer literal that fits 64 bits stays an integer (Foundation's reader
/// makes booleans and numbers one kind, and `1.0` the same as `1`).
public indirect enum JSONNode: Equatable, Sendable {
    case object([(key: String, value: JSONNode)])
    case array([JSONNode])
    case string(String)
    /// A literal without fraction or exponent that fits in an `Int64`.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    case bool(Bool)
    case null

    public static func == (a: JSONNode, b: JSONNode) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }
}

/// Why bytes are not JSON text.
public struct JSONTextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// Where (a byte offset).
    public var offset: Int

    public var description: String { "\(reason) at byte \(offset)" }
}

/// Reads JSON text (RFC 8259) strictly: UTF-8, one value, nothing after it but
/// whitespace, at most ``maximumDepth`` nested arrays and objects.
public enum JSONText {
    /// Nesting deeper than this is refused rather than followed.
    public static let maximumDepth = 512

    /// Whether the first byte after whitespace (and a UTF-8 byte-order mark) opens an object or array.
    public static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, Parser.isWhitespace(bytes[i]) { i += 1 }
        return i < bytes.count && (bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "["))
    }

    /// Parses `bytes` as one JSON value.
    public static func parse(_ bytes: [UInt8]) throws -> JSONNode {
        var parser = Parser(bytes: bytes, position: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        return try parser.document()
    }

    /// Every object member whose value is an integer literal, with the bytes
    /// of that literal, in document order: to rewrite one number and keep
    /// every other byte.
    public static func integerMembers(_ bytes: [UInt8]) throws -> [(key: String, range: Range<Int>)] {
        var parser = Parser(bytes: bytes, position: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        parser.integerMembers = []
        _ = try parser.document()
        return parser.integerMembers ?? []
    }

    private struct Parser {
        let bytes: [UInt8]
        var position: Int
        /// Collected when not nil (``JSONText/integerMembers(_:)``).
        var integerMembers: [(key: String, range: Range<Int>)]?

        mutating func document() throws -> JSONNode {
            skipWhitespace()
            let value = try value(depth: 0)
            skipWhitespace()
            guard position == bytes.count else { throw error("text after the JSON value") }
            return value
        }

        static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

        func error(_ reason: String) -> JSONTextError { JSONTextError(reason: reason, offset: position) }

        mutating func skipWhitespace() {
            while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) throws -> JSONNode {
            guard position < bytes.count else { throw error("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: String) throws {
            let expected = Array(word.utf8)
            guard bytes.count - position >= expected.count,
                Array(bytes[position..<position + expected.count]) == expected
            else {
                throw error("unexpected character")
            }
            position += expected.count
        }

        mutating func object(depth: Int) throws -> JSONNode {
            guard depth <= JSONText.maximumDepth else {
                throw error("nested deeper than \(JSONText.maximumDepth) levels")
            }
            position += 1
            var members: [(key: String, value: JSONNode)] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw error("expected a member name")
                }
                let key = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                skipWhitespace()
                let start = position
                let member = try value(depth: depth)
                if case .integer = member { integerMembers?.append((key, start..<position)) }
                members.append((key, member))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
                position += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws -> JSONNode {
            guard depth <= JSONText.maximumDepth else {
                throw error("nested deeper than \(JSONText.maximumDepth) levels")
            }
            position += 1
            var items: [JSONNode] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                position += 1
                return .array(items)
            }
        }

        mutating func number() throws -> JSONNode {
            let start = position
            var integral = true
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            func digits() -> Int {
                let from = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position += 1
                }
                return position - from
            }
            let whole = position
            guard digits() > 0 else { throw error("a number without digits") }
            if bytes[whole] == UInt8(ascii: "0") && position - whole > 1 { throw error("a number with a leading zero") }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                integral = false
                position += 1
                guard digits() > 0 else { throw error("a fraction without digits") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                integral = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                guard digits() > 0 else { throw error("an exponent without digits") }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if integral, let n = Int64(text) { return .integer(n) }
            return .number(Double(text) ?? .nan)
        }

        mutating func string() throws -> String {
            position += 1
            var out: [UInt8] = []
            while true {
                guard position < bytes.count else { throw error("unterminated string") }
                let b = bytes[position]
                switch b {
                case UInt8(ascii: "\""):
                    position += 1
                    guard XMLText.utf8Problem(out) == nil else { throw error("a string that is not UTF-8") }
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { throw error("unterminated string") }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"): out += try unicodeEscape()
                    default: throw error("an unknown escape")
                    }
                case 0..<0x20:
                    throw error("a control character in a string")
                default:
                    out.append(b)
                    position += 1
                }
            }
        }

        /// The UTF-8 of `\uXXXX` (after `\u`), joining a surrogate pair; a lone surrogate is U+FFFD.
        mutating func unicodeEscape() throws -> [UInt8] {
            let high = try hex4()
            var scalar: Unicode.Scalar?
            if (0xD800...0xDBFF).contains(high), bytes.count - position >= 6,
                bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
            {
                let saved = position
                position += 2
                let low = try hex4()
                if (0xDC00...0xDFFF).contains(low) {
                    scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    position = saved
                }
            } else {
                scalar = Unicode.Scalar(high)
            }
            return Array(String(Character(scalar ?? "\u{FFFD}")).utf8)
        }

        mutating func hex4() throws -> UInt32 {
            guard bytes.count - position >= 4 else { throw error("a short \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Self.hexValue(bytes[position]) else {
                    throw error("a \\u escape that is not hexadecimal")
                }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        static func hexValue(_ b: UInt8) -> UInt32? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
    }
}
