/// Text from a store, a plist or a path, made safe to show on a terminal: every control
/// character is shown as an escape (`\e`, `\a`, `\u{9B}`, …) instead of being sent, so a
/// name can neither set the window title, write the clipboard (OSC 52), add a link, clear
/// the screen, nor reorder what follows it (a bidi override, U+202E). JSON and NDJSON
/// escape by their own rules and do not use this. (A format, not printing: the tool
/// that prints uses it.)
public enum TerminalText {
    /// `text` with its control characters made visible; `newline` and `tab` replace a line
    /// break (CR LF as one) and a tab (a table shows them as `↵` and a space).
    public static func visible(_ text: String, newline: String = "\\n", tab: String = "\\t") -> String {
        guard text.utf8.withContiguousStorageIfAvailable({ $0.contains(where: mayStartControl) }) ?? text.utf8.contains(where: mayStartControl)
        else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            if scalar == "\n" {
                if previousWasCR { out.removeLast(2) }
                out += newline
            } else if scalar == "\t" {
                out += tab
            } else if let escape = escape(scalar) {
                out += escape
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A byte that begins a control character in UTF-8: C0, DEL, the lead byte of C1
    /// (U+0080–U+009F) or of the line separators and bidi controls (U+2028–U+2069).
    private static func mayStartControl(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xE2
    }

    /// How `scalar` is shown, or nil when it is shown as itself.
    public static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x1B: return "\\e"
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x00: return "\\0"
        case 0x0B: return "\\v"
        case 0x0C: return "\\f"
        case 0x0D: return "\\r"
        case 0x0A: return "\\n"
        case 0x09: return "\\t"
        case 0x01...0x1F, 0x7F...0x9F, 0x2028...0x2029, 0x202A...0x202E, 0x2066...0x2069:
            return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default: return nil
        }
    }
}
