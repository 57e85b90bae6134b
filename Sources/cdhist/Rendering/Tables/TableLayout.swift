import Foundation

/// Column sizing and padding for tables.
enum TableLayout {
    /// Widths fitting the widest cell, shrinking flexible columns to fit `terminalWidth`.
    static func widths(columns: [Column], rows: [[Cell]], terminalWidth: Int?) -> [Int] {
        var widths = columns.map { $0.title.count }
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                // Counting stops at 200 characters: a 10 MB author is not counted through.
                widths[i] = max(widths[i], cell.text.prefix(200).count)
            }
        }
        guard let total = terminalWidth else { return widths }
        let gaps = 2 * max(0, columns.count - 1)
        var excess = widths.reduce(0, +) + gaps - total
        let flexible = columns.indices.filter { columns[$0].flexible }
        // Shrink the widest flexible column, one character at a time, down to 4.
        while excess > 0 {
            guard let widest = flexible.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 else { break }
            widths[widest] -= 1
            excess -= 1
        }
        return widths
    }

    /// Fits `text` into `width` characters, ending with `…` when cut; control
    /// characters are made visible so a row stays one line.
    static func truncate(_ text: String, to width: Int) -> String {
        // Only what can be shown is looked at (a cell may hold megabytes).
        let shown = width == Int.max ? Substring(text) : text.prefix(width)
        let cut = shown.endIndex < text.endIndex
        let visible = cut ? shown.dropLast() : shown
        let clean = visible.contains(where: { $0.isNewline || $0 == "\t" })
            ? String(visible.map { $0.isNewline ? "↵" : $0 == "\t" ? " " : $0 }) : String(visible)
        return cut ? clean + "…" : clean
    }

    static func pad(_ text: String, to width: Int, right: Bool) -> String {
        let n = max(0, width - text.count)
        let spaces = String(repeating: " ", count: n)
        return right ? spaces + text : text + spaces
    }
}
