import Foundation

/// A value read from (or to be written to) a property list.
///
/// Binary plists can hold keyed-archive UIDs, which Foundation does not expose
/// portably; this enum keeps them, so keyed archives can be walked on every
/// platform. Dates are kept as Cocoa seconds (since 2001-01-01 UTC), the unit
/// `ATRANSACTION.ZTIMESTAMP` uses, so they compare without conversion.
public enum PlistValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data([UInt8])
    case array([PlistValue])
    case dictionary([String: PlistValue])
    /// A keyed-archive object reference (`CF$UID`).
    case uid(UInt64)
    /// The binary plist `null` marker (rare; never written by Foundation).
    case null

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, when this is an integer (or a real holding an integral value).
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// The boolean, when this is a bool or an integer 0/1.
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .integer(let i): return i != 0
        default: return nil
        }
    }

    /// The bytes, when this is data.
    public var dataValue: [UInt8]? {
        if case .data(let d) = self { return d }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [PlistValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries, when this is a dictionary.
    public var dictionaryValue: [String: PlistValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// Looks up `key` when this is a dictionary.
    public subscript(key: String) -> PlistValue? {
        dictionaryValue?[key]
    }
}

extension PlistValue {
    /// What kind of value this is, for messages: "a string", "a number", "data" …
    public var kindName: String {
        switch self {
        case .string: return "a string"
        case .integer, .real: return "a number"
        case .bool: return "a boolean"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        case .date: return "a date"
        case .data: return "data"
        case .uid, .null: return "an archive reference"
        }
    }
}
