import Foundation

/// RFC 4180 CSV rows.
enum CSV {
    static func row(_ fields: [String]) -> String {
        var out: [UInt8] = []
        for (i, text) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            field(text, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func field(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { field(bytes: $0, to: &out) }
    }

    /// A field, quoted (with doubled quotes) only when it holds a comma, quote or line break.
    static func field<Bytes: Collection<UInt8>>(bytes: Bytes, to out: inout [UInt8]) {
        guard bytes.contains(where: needsQuoting) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        appendEscaped(bytes, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// One field holding `parts` joined by `separator` (an unquoted byte), as
    /// ``field(_:to:)`` would write the joined string, without building it.
    /// (Written unquoted in one pass, the usual case for property names, and again quoted
    /// when a part turns out to need it.)
    static func field(joining parts: [String], separator: UInt8, to out: inout [UInt8]) {
        let start = out.count
        var quoted = false
        for (i, part) in parts.enumerated() {
            if i > 0 { out.append(separator) }
            var text = part
            let plain = text.withUTF8 { bytes -> Bool in
                guard !bytes.contains(where: needsQuoting) else { return false }
                out.append(contentsOf: bytes)
                return true
            }
            if !plain {
                quoted = true
                break
            }
        }
        guard quoted else { return }
        out.removeSubrange(start...)
        out.append(UInt8(ascii: "\""))
        for (i, part) in parts.enumerated() {
            if i > 0 { out.append(separator) }
            appendEscaped(part.utf8, to: &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsQuoting(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "\"") || b == 0x0A || b == 0x0D
    }

    private static func appendEscaped<Bytes: Collection<UInt8>>(_ bytes: Bytes, to out: inout [UInt8]) {
        for b in bytes {
            if b == UInt8(ascii: "\"") { out.append(b) }
            out.append(b)
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
