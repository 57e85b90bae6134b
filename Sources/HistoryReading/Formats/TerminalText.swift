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
        guard
            text.utf8.withContiguousStorageIfAvailable(hasControl)
                ?? Array(text.utf8).withUnsafeBufferPointer(hasControl)
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

    /// Whether UTF-8 `bytes` hold a character ``escape(_:)`` shows otherwise: C0, DEL, C1
    /// (`C2 80`–`C2 9F`), the line separators and embedding controls (U+2028–U+202E:
    /// `E2 80 A8`–`AE`) or the isolates (U+2066–U+2069: `E2 81 A6`–`A9`). Read byte by byte:
    /// text without any (most of it) is returned as it is.
    private static func hasControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x20 || byte == 0x7F { return true }
            if byte == 0xC2, i + 1 < bytes.count, bytes[i + 1] <= 0x9F { return true }
            if byte == 0xE2, i + 2 < bytes.count {
                let second = bytes[i + 1]
                let third = bytes[i + 2]
                if second == 0x80 && (0xA8...0xAE).contains(third) || second == 0x81 && (0xA6...0xA9).contains(third) {
                    return true
                }
            }
            i += 1
        }
        return false
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
