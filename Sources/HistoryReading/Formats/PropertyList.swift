import Foundation

/// Reads and writes property lists in either format.
public enum PropertyList {
    /// The two on-disk encodings of a property list.
    public enum Format: String, Sendable {
        case binary
        case xml
    }

    /// Decodes binary or XML plist bytes.
    public static func decode(_ bytes: [UInt8]) throws -> (value: PlistValue, format: Format) {
        if BinaryPlistReader.isBinaryPlist(bytes) {
            var reader = try BinaryPlistReader(bytes: bytes)
            return (try reader.parse(), .binary)
        }
        if XMLPlistReader.looksLikeXML(bytes) {
            return (try XMLPlistReader.parse(bytes), .xml)
        }
        throw PlistError.notAPropertyList
    }

    /// Decodes binary or XML plist data.
    public static func decode(_ data: Data) throws -> PlistValue {
        try decode([UInt8](data)).value
    }

    /// Encodes `value` as an XML plist (dates lose their fractions, as in any XML plist);
    /// throws ``PlistError/unrepresentable(_:)`` for a date outside the years 1–9999.
    public static func encodeXML(_ value: PlistValue) throws -> [UInt8] {
        Array(try XMLPlistWriter.encode(value).utf8)
    }

    /// Encodes `value` as a binary plist.
    public static func encodeBinary(_ value: PlistValue) -> [UInt8] {
        BinaryPlistWriter.encode(value)
    }
}
