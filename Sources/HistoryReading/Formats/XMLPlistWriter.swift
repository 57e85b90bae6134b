import Foundation

/// Writes ``PlistValue``s as an XML property list, the way `plutil -convert xml1`
/// does: keys sorted, dates in whole seconds (XML plists keep no fractions), UIDs
/// as `CF$UID` dictionaries. A date outside the years 1–9999 has no ISO 8601
/// form with a four-digit year (and Foundation's formatter traps on the far
/// ones): it is refused with ``PlistError/unrepresentable(_:)``.
enum XMLPlistWriter {
    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in Cocoa seconds, as ISO8601DateFormatter
    /// counts them (Julian before 1582, so the first day lies two days before the proleptic
    /// Gregorian 0001-01-01 of ``Transaction/datedTimestamps``).
    static let dateRange = -63_114_076_800.0..<252_423_993_600.0

    static func encode(_ value: PlistValue) throws -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        try write(value, indent: 0, into: &out)
        out += "</plist>\n"
        return out
    }

    private static func write(_ value: PlistValue, indent: Int, into out: inout String) throws {
        let pad = String(repeating: "\t", count: indent)
        switch value {
        case .string(let s): out += "\(pad)<string>\(escape(s))</string>\n"
        case .integer(let i): out += "\(pad)<integer>\(i)</integer>\n"
        case .real(let d): out += "\(pad)<real>\(d)</real>\n"
        case .bool(let b): out += "\(pad)<\(b ? "true" : "false")/>\n"
        case .null: out += "\(pad)<string></string>\n"
        case .date(let d):
            guard dateRange.contains(d.rounded(.down)) else {
                throw PlistError.unrepresentable(
                    "the date \(d) (Cocoa seconds) is outside the years 1–9999 an XML plist can hold")
            }
            let f = ISO8601DateFormatter()
            f.timeZone = TimeZone(identifier: "UTC")
            out += "\(pad)<date>\(f.string(from: Date(timeIntervalSinceReferenceDate: d.rounded(.down))))</date>\n"
        case .data(let bytes):
            out += "\(pad)<data>\n\(pad)\(Data(bytes).base64EncodedString())\n\(pad)</data>\n"
        case .uid(let u):
            try write(.dictionary(["CF$UID": .integer(Int64(bitPattern: u))]), indent: indent, into: &out)
        case .array(let items):
            out += "\(pad)<array>\n"
            for item in items { try write(item, indent: indent + 1, into: &out) }
            out += "\(pad)</array>\n"
        case .dictionary(let dict):
            out += "\(pad)<dict>\n"
            for key in dict.keys.sorted() {
                out += "\(pad)\t<key>\(escape(key))</key>\n"
                try write(dict[key] ?? .null, indent: indent + 1, into: &out)
            }
            out += "\(pad)</dict>\n"
        }
    }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }
}
