import Foundation
import HistoryKit

/// HTML text: escaping, and ``Document`` sections as HTML (the report reuses
/// what the commands present).
enum HTML {
    /// `text` safe inside an element or a quoted attribute: `& < > " '` become
    /// references, and control characters HTML forbids become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        // Bidi embeddings, overrides and isolates the text opens: closed at its end, so a name
        // cannot reverse what the page says after it.
        var open: [Unicode.Scalar] = []
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case "\u{202A}", "\u{202B}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}":
                open.append(scalar)
                out.unicodeScalars.append(scalar)
            case "\u{202C}":
                // Closes the innermost embedding or override, not an isolate.
                if let last = open.last, !isIsolate(last) { open.removeLast() }
                out.unicodeScalars.append(scalar)
            case "\u{2069}":
                // Closes the innermost isolate and whatever it holds open.
                if let i = open.lastIndex(where: isIsolate) { open.removeSubrange(i...) }
                out.unicodeScalars.append(scalar)
            default:
                // Other control characters are shown as escapes (`\e`, `\u{9B}`), as on a terminal.
                if let visible = TerminalText.escape(scalar) {
                    out += visible
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        for opener in open.reversed() { out.unicodeScalars.append(isIsolate(opener) ? "\u{2069}" : "\u{202C}") }
        return out
    }

    private static func isIsolate(_ scalar: Unicode.Scalar) -> Bool {
        (0x2066...0x2068).contains(scalar.value)
    }

    /// `text` escaped, with line-break opportunities (`<wbr>`) in long runs
    /// without spaces (digests, IDs, dotted names) after punctuation past the
    /// 12th character and at least every 20 characters, so a table column does not grow to the
    /// longest run; copied text is unchanged.
    static func breakable(_ text: String) -> String {
        let text = shortened(text)
        var out = ""
        var run = 0
        var breakHere = false
        for character in text {
            if character.isWhitespace {
                run = 0
                breakHere = false
            } else {
                if breakHere { out += "<wbr>" }
                run += 1
                // Dates and times (`2025-03-04 11:30:00.000Z`) stay whole.
                breakHere = run >= 20 || (run >= 12 && "./_-+=,".contains(character))
                if breakHere { run = 0 }
            }
            out += escape(String(character))
        }
        return out
    }

    /// `text` up to `limit` characters, then `… (N characters)`: a name of megabytes is
    /// shown once, shortened, not repeated whole in every place that names it.
    static func shortened(_ text: String, to limit: Int = 1000) -> String {
        guard text.utf8.count > limit, text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.count) characters)"
    }

    /// Characters past which a badge wraps (a status never does).
    static let longBadge = 24

    /// The class and the symbol (so that colour is never the only sign) of a styled cell.
    static func badge(_ style: Style) -> (cssClass: String, symbol: String)? {
        switch style {
        case .green: return ("ok", "✓")
        case .yellow: return ("warn", "⚠")
        case .red: return ("bad", "✕")
        case .bold, .dim: return nil
        }
    }

    /// A cell's text, with its badge or emphasis. An empty cell has no badge (a badge with
    /// nothing in it reads as a verdict); a badge of more than a few words wraps within its
    /// column instead of widening the table.
    static func cell(_ text: String, style: Style?) -> String {
        guard let style, !text.isEmpty else { return breakable(text) }
        if let badge = badge(style) {
            let long = text.count > longBadge ? " long" : ""
            return
                """
                <span class=\"badge \(badge.cssClass)\(long)\"><span aria-hidden=\"true\">\(badge.symbol) \
                </span>\(escape(shortened(text)))</span>
                """
        }
        return style == .bold ? "<strong>\(breakable(text))</strong>" : "<span class=\"dim\">\(breakable(text))</span>"
    }

    /// Fields as a definition list, tables as tables (titles as `<h3>`), notes as paragraphs.
    static func sections(_ sections: [Document.Section]) -> String {
        var out = ""
        for section in sections {
            switch section {
            case .fields(let title, let pairs):
                if let title { out += "<h3>\(escape(shortened(title)))</h3>\n" }
                out += "<dl class=\"fields\">\n"
                for (key, value) in pairs { out += "<dt>\(escape(shortened(key)))</dt><dd>\(breakable(value))</dd>\n" }
                out += "</dl>\n"
            case .table(let title, let columns, let rows):
                if let title { out += "<h3>\(escape(shortened(title)))</h3>\n" }
                out += table(columns: columns, rows: rows)
            case .note(let text):
                out += "<p class=\"note\">\(escape(shortened(text, to: 4000)))</p>\n"
            case .commands(let title, let commands):
                let lines = commands.map { escape(shortened(ShellWord.line($0), to: 4000)) }
                out +=
                    "<p class=\"note\">\(escape(shortened(title)))</p>\n<pre>\(lines.joined(separator: "\n"))</pre>\n"
            }
        }
        return out
    }

    static func table(columns: [Column], rows: [[Cell]]) -> String {
        guard !rows.isEmpty else { return "<p class=\"note\">(none)</p>\n" }
        func attributes(_ i: Int) -> String { i < columns.count && columns[i].alignRight ? " class=\"num\"" : "" }
        var out = "<div class=\"scroll\"><table>\n<thead><tr>"
        for (i, column) in columns.enumerated() { out += "<th\(attributes(i))>\(escape(shortened(column.title)))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for row in rows {
            out += "<tr>"
            for (i, cell) in row.enumerated() {
                out += "<td\(attributes(i))>\(self.cell(cell.text, style: cell.style))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</tbody>\n</table></div>\n"
    }
}
