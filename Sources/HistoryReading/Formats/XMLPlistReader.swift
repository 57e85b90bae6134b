import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Parses XML property lists into ``PlistValue``s.
///
/// Foundation's own parser turns `CF$UID` dictionaries into opaque objects and
/// cannot tell `<true/>` from `<integer>1</integer>` on every platform, so
/// the few plist elements are read here directly.
enum XMLPlistReader {
    /// True when the bytes look like an XML plist (after optional BOM/space).
    static func looksLikeXML(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(256), as: UTF8.self)
        return head.contains("<plist") || head.hasPrefix("<?xml")
    }

    static func parse(_ bytes: [UInt8]) throws -> PlistValue {
        if let problem = XMLText.problem(bytes) { throw PlistError.malformed("XML: \(problem)") }
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let detail = builder.failure ?? parser.parserError.map { "\($0)" } ?? "no <plist> element"
            throw PlistError.malformed("XML: \(detail)")
        }
        guard root.name == "plist" else { throw PlistError.malformed("XML root is <\(root.name)>, not <plist>") }
        guard let first = root.children.first else { throw PlistError.malformed("empty <plist>") }
        return try value(first, depth: 0)
    }

    private final class Element {
        let name: String
        var children: [Element] = []
        var text = ""
        init(name: String) { self.name = name }
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []
        var failure: String?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            let e = Element(name: name)
            if let parent = stack.last { parent.children.append(e) } else if root == nil { root = e }
            stack.append(e)
            if stack.count > 512 {
                failure = "nesting deeper than 512"
                parser.abortParsing()
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }

    private static func value(_ e: Element, depth: Int) throws -> PlistValue {
        let text = e.text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch e.name {
        case "string": return .string(e.text)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "integer":
            if let i = Int64(text) { return .integer(i) }
            if let u = UInt64(text) { return .integer(Int64(bitPattern: u)) }
            throw PlistError.malformed("XML: bad <integer> \(text.prefix(40))")
        case "real":
            guard let d = Double(text) else { throw PlistError.malformed("XML: bad <real> \(text.prefix(40))") }
            return .real(d)
        case "date":
            let f = ISO8601DateFormatter()
            guard let date = f.date(from: text) else {
                throw PlistError.malformed("XML: bad <date> \(text.prefix(40))")
            }
            return .date(date.timeIntervalSinceReferenceDate)
        case "data":
            let compact = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else {
                throw PlistError.malformed("XML: bad base64 in <data>")
            }
            return .data([UInt8](data))
        case "array":
            return .array(try e.children.map { try value($0, depth: depth + 1) })
        case "dict":
            var dict: [String: PlistValue] = [:]
            var i = 0
            while i < e.children.count {
                let k = e.children[i]
                guard k.name == "key", i + 1 < e.children.count else {
                    throw PlistError.malformed("XML: <dict> entry without <key> and value")
                }
                dict[k.text] = try value(e.children[i + 1], depth: depth + 1)
                i += 2
            }
            if dict.count == 1, let uid = dict["CF$UID"]?.integerValue, uid >= 0 {
                return .uid(UInt64(uid))
            }
            return .dictionary(dict)
        default:
            throw PlistError.malformed("XML: unknown element <\(e.name)>")
        }
    }
}
