import Foundation

/// RFC 4180 CSV rows. Unless `raw`, a text cell a spreadsheet would evaluate (one that
/// begins with `=`, `+`, `-`, `@`, a tab or a carriage return and is not a number) is
/// written quoted after a `'`, as OWASP advises against CSV injection: `=HYPERLINK(…)`
/// shows as text instead of running. Numbers are left alone.
enum CSV {
    static func row(_ fields: [String], raw: Bool) -> String {
        var out: [UInt8] = []
        for (i, text) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            field(text, to: &out, raw: raw)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func field(_ text: String, to out: inout [UInt8], raw: Bool) {
        var text = text
        text.withUTF8 { field(bytes: $0, to: &out, raw: raw) }
    }

    /// A field, quoted (with doubled quotes) when it holds a comma, quote or line break, or
    /// would be evaluated as a formula (then after a `'`, unless `raw`).
    static func field<Bytes: Collection<UInt8>>(bytes: Bytes, to out: inout [UInt8], raw: Bool) {
        let formula = !raw && isFormula(bytes)
        guard formula || bytes.contains(where: needsQuoting) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        if formula { out.append(UInt8(ascii: "'")) }
        appendEscaped(bytes, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Whether a spreadsheet would evaluate `bytes`: its first byte starts a formula and the
    /// whole is not a plain number (`-2`, `+1.5e3` stay as they are).
    static func isFormula<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard let first = bytes.first else { return false }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "@"), 0x09, 0x0D: return true
        // A lone sign is text (a table's "-" for none).
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return bytes.count > 1 && !isNumber(bytes.dropFirst())
        default: return false
        }
    }

    /// Digits with at most one decimal point, then an optional exponent.
    private static func isNumber<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        var digits = 0
        var points = 0
        var exponent = false
        var exponentDigits = 0
        var previous: UInt8 = 0
        for b in bytes {
            defer { previous = b }
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): if exponent { exponentDigits += 1 } else { digits += 1 }
            case UInt8(ascii: "."):
                guard !exponent else { return false }
                points += 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard !exponent, digits > 0 else { return false }
                exponent = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E") else { return false }
            default: return false
            }
        }
        return digits > 0 && points <= 1 && (!exponent || exponentDigits > 0)
    }

    /// One field holding `parts` joined by `separator` (an unquoted byte), as
    /// ``field(_:to:)`` would write the joined string, without building it.
    /// (Written unquoted in one pass, the usual case for property names, and again quoted
    /// when a part turns out to need it.)
    static func field(joining parts: [String], separator: UInt8, to out: inout [UInt8], raw: Bool) {
        let start = out.count
        let formula = !raw && parts.first.map { isFormula($0.utf8) } == true
        var quoted = formula
        for (i, part) in parts.enumerated() where !formula {
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
        if formula { out.append(UInt8(ascii: "'")) }
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
        // By bytes: dropping one character at a time counts the rest each time (a row padded
        // to a wide last column took seconds). A space ends whatever character precedes it.
        guard let last = utf8.lastIndex(where: { $0 != UInt8(ascii: " ") }) else { return "" }
        return String(decoding: utf8[...last], as: UTF8.self)
    }
}
