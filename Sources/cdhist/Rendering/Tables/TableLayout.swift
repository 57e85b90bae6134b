import Foundation
import HistoryKit

/// How a table is laid out for a terminal: which columns stay in the grid and
/// how wide, which move under their row. Numbers, ids, dates and statuses are
/// never cut; free text wraps; what still does not fit goes under the row.
struct TableLayout {
    /// Column indices in the grid, in order.
    var inline: [Int]
    /// Widths by column index (meaningful for ``inline`` columns).
    var widths: [Int]
    /// Column indices shown under their row, in order.
    var below: [Int]
    /// The width to fit (nil: not a terminal, nothing is wrapped or moved).
    var total: Int?

    /// Characters of a cell a table shows at most; JSON and CSV carry all of it.
    static let longestCell = 1000
    /// Spaces between grid columns.
    static let gap = 2
    /// Past this many columns, columns move under their rows in order of cost instead
    /// of every arrangement being tried (2^(n-1) of them).
    static let searchedColumns = 12
    /// How far lines under a row are indented.
    static let belowIndent = 4

    /// Lays out `columns` for `rows` (the first rows of a streamed table) in `totalWidth`
    /// columns. Every way of moving columns under their rows is tried, and in each the
    /// columns give way in steps, cheapest first: text wraps between words, a whole value
    /// (a date) breaks at its spaces, text breaks inside a word; never narrower than a
    /// number, id or date it holds. The arrangement that costs least wins.
    init(columns: [Column], rows: [[Cell]], totalWidth: Int?) {
        let n = columns.count
        var natural = columns.map { max($0.shownTitle.cells, $0.minWidth) }
        // Text: no narrower than its longest word (else a word breaks), never than its numbers and dates.
        var longestWord = columns.map { $0.shownTitle.cells }
        var floor = columns.map { $0.fit == .whole ? max($0.shownTitle.cells, $0.minWidth) : $0.narrowest }
        for row in rows {
            for (i, cell) in row.enumerated() where i < n {
                // Measured as shown: cut at the longest a table shows, digests shortened.
                let text = Self.clean(cell.text)
                natural[i] = max(natural[i], text.cells)
                let units = TextWrap.units(text, keepingDatesWhole: columns[i].fit != .whole).map(\.cells)
                longestWord[i] = max(longestWord[i], units.max() ?? 0)
                if columns[i].fit != .whole {
                    floor[i] = max(
                        floor[i],
                        TextWrap.units(text).filter { $0.count <= 40 && $0.contains(where: \.isNumber) }.map(\.cells)
                            .max() ?? 0)
                }
            }
        }
        for i in 0..<n {
            longestWord[i] = min(longestWord[i], natural[i])
            if columns[i].fit == .whole {
                floor[i] = max(floor[i], longestWord[i])
            } else {
                floor[i] = min(floor[i], natural[i])
            }
        }
        total = totalWidth
        below = []
        inline = Array(0..<n)
        widths = natural
        guard let total = totalWidth, n > 0 else { return }
        // What moving a column under its row costs.
        func moveCost(_ i: Int) -> Double {
            switch columns[i].importance {
            case .key: return 20
            case .detail: return 1.5
            case .normal: break
            }
            switch columns[i].fit {
            case .below: return 0.5
            case .wrap, .value: return 4
            // A number away from its column reads worst.
            case .whole: return columns[i].alignRight ? 8 : 5
            }
        }
        func fits(_ inline: [Int]) -> (cost: Double, widths: [Int])? {
            Self.fit(inline, columns: columns, natural: natural, longestWord: longestWord, floor: floor, total: total)
        }
        var best: (cost: Double, inline: [Int], widths: [Int])?
        if n <= Self.searchedColumns {
            for mask in 0..<(1 << (n - 1)) {
                // Column 0 always stays.
                let kept = [0] + (1..<n).filter { mask & (1 << ($0 - 1)) == 0 }
                guard let (cost, widths) = fits(kept) else { continue }
                let total = cost + (1..<n).filter { mask & (1 << ($0 - 1)) != 0 }.reduce(0.0) { $0 + moveCost($1) }
                if best.map({ total < $0.cost }) ?? true { best = (total, kept, widths) }
            }
        } else {
            // Many columns: the cheapest to move go first, until the rest fits.
            var kept = Array(0..<n)
            for i in (1..<n).sorted(by: { (moveCost($0), -$0) < (moveCost($1), -$1) }) {
                if let fit = fits(kept) {
                    best = (fit.cost, kept, fit.widths)
                    break
                }
                kept.removeAll { $0 == i }
            }
            if best == nil, let fit = fits(kept) { best = (fit.cost, kept, fit.widths) }
        }
        if let best {
            inline = best.inline
            widths = best.widths
        } else {
            // Not even the first column fits: it takes the line, and wraps.
            inline = [0]
            widths[0] = min(natural[0], max(1, total))
        }
        below = (0..<n).filter { !inline.contains($0) }
    }

    /// The widths of `inline` columns that fit `total`, and what their wrapping costs; nil when they cannot fit.
    private static func fit(
        _ inline: [Int], columns: [Column], natural: [Int], longestWord: [Int], floor: [Int],
        total: Int
    ) -> (Double, [Int])? {
        var widths = natural
        var excess = inline.reduce(0) { $0 + natural[$1] } + gap * (inline.count - 1) - total
        // Takes characters from `candidates`, the widest first, down to `limit`.
        func shrink(_ candidates: [Int], to limit: (Int) -> Int) {
            while excess > 0 {
                guard let widest = candidates.filter({ widths[$0] > limit($0) }).max(by: { widths[$0] < widths[$1] })
                else { return }
                widths[widest] -= 1
                excess -= 1
            }
        }
        let texts = inline.filter { columns[$0].fit != .whole }
        let wholes = inline.filter { columns[$0].fit == .whole }
        shrink(texts) { max(longestWord[$0], floor[$0]) }
        shrink(wholes) { floor[$0] }
        shrink(texts) { floor[$0] }
        guard excess <= 0 else { return nil }
        var cost = 0.0
        for i in inline where widths[i] < natural[i] {
            switch columns[i].fit {
            case .whole: cost += 2
            case .wrap, .value, .below: cost += widths[i] < longestWord[i] ? 7 : 1
            }
        }
        return (cost, widths)
    }

    /// Appends the lines of one row to `out`, each ended by a line feed: the grid lines (a cell
    /// wraps within its column), then each column moved under the row, indented; styled by
    /// `style` (nil: no colour). Written as bytes: a table of millions of rows builds no string per line.
    func write(_ cells: [Cell], columns: [Column], style: ((String, Style) -> String)?, to out: inout [UInt8]) {
        // Each cell cleaned once (a column under the row is looked at twice).
        let texts = columns.indices.map { i in i < cells.count ? Self.clean(cells[i].text) : "" }
        // Not on a terminal nothing wraps, and a row whose every cell fits its column as it is
        // (what TextWrap leaves whole) is one line: most rows, written without breaking cells.
        if total == nil || inline.allSatisfy({ widths[$0] <= 0 || texts[$0].cells <= widths[$0] }) {
            writeLine({ texts[inline[$0]] }, cells: cells, columns: columns, style: style, to: &out)
            writeBelow(texts, cells: cells, columns: columns, style: style, to: &out)
            return
        }
        // A value wider than its column goes under this row, whole.
        let moved = inline.filter { i in
            if case .value = columns[i].fit { return widths[i] > 0 && texts[i].cells > widths[i] }
            return false
        }
        // A whole value breaks only at its spaces, when it must, and is never cut (a value
        // wider than the rows the table was sized from stays whole).
        let grid = inline.map { i in
            moved.contains(i)
                ? [""]
                : TextWrap.lines(
                    texts[i], width: widths[i], keepingDatesWhole: columns[i].fit != .whole,
                    hardBreak: columns[i].fit != .whole)
        }
        for k in 0..<(grid.map(\.count).max() ?? 1) {
            writeLine({ k < grid[$0].count ? grid[$0][k] : "" }, cells: cells, columns: columns, style: style, to: &out)
        }
        writeBelow(texts, moved: moved, cells: cells, columns: columns, style: style, to: &out)
    }

    /// One grid line: `piece(n)` in the `n`th grid column, padded to its width, without trailing spaces.
    private func writeLine(
        _ piece: (Int) -> String, cells: [Cell], columns: [Column], style: ((String, Style) -> String)?,
        to out: inout [UInt8]
    ) {
        let space = UInt8(ascii: " ")
        let start = out.count
        for (n, i) in inline.enumerated() {
            if n > 0 { out.append(contentsOf: repeatElement(space, count: Self.gap)) }
            let piece = piece(n)
            if let style, i < cells.count, let cellStyle = cells[i].style {
                out += style(Self.pad(piece, to: widths[i], right: columns[i].alignRight), cellStyle).utf8
            } else {
                let padding = repeatElement(space, count: max(0, widths[i] - piece.cells))
                if columns[i].alignRight { out += padding }
                out += piece.utf8
                if !columns[i].alignRight { out += padding }
            }
        }
        // No trailing spaces (a style's escape ends what it pads).
        while out.count > start, out.last == space { out.removeLast() }
        out.append(0x0A)
    }

    /// Under the row: each explanation as a paragraph, the other columns together as "Title: value; …".
    /// `moved`: the columns of the grid whose values this row has under it (wider than their columns).
    private func writeBelow(
        _ texts: [String], moved: [Int] = [], cells: [Cell], columns: [Column], style: ((String, Style) -> String)?,
        to out: inout [UInt8]
    ) {
        let space = UInt8(ascii: " ")
        let room = (total ?? Int.max) - Self.belowIndent
        func paragraph(_ text: String, style cellStyle: Style?) {
            for line in TextWrap.lines(text, width: room) {
                out.append(contentsOf: repeatElement(space, count: Self.belowIndent))
                if let style, let cellStyle { out += style(line, cellStyle).utf8 } else { out += line.utf8 }
                out.append(0x0A)
            }
        }
        let labelled = (below + moved).sorted().filter {
            columns[$0].fit != .below && !texts[$0].isEmpty && texts[$0] != "-"
        }
        .map { (title: columns[$0].shownTitle, text: texts[$0]) }
        if !labelled.isEmpty {
            // ASCII that fits one line is written in place (what wrapping the joined text would give).
            if room <= 0
                || labelled.allSatisfy({ $0.title.isPlainASCII && $0.text.isPlainASCII })
                    && labelled.reduce(2 * (labelled.count - 1), { $0 + $1.title.utf8.count + 2 + $1.text.utf8.count })
                        <= room
            {
                out.append(contentsOf: repeatElement(space, count: Self.belowIndent))
                for (n, pair) in labelled.enumerated() {
                    if n > 0 { out += "; ".utf8 }
                    out += pair.title.utf8
                    out += ": ".utf8
                    out += pair.text.utf8
                }
                out.append(0x0A)
            } else {
                // Each "Title: value" is kept on one line where it fits one: the next starts a
                // line when it does not fit the rest of this one; one wider than a line wraps.
                var line = ""
                for pair in labelled {
                    let part = "\(pair.title): \(pair.text)"
                    if !line.isEmpty, line.cells + 2 + part.cells <= room {
                        line += "; " + part
                        continue
                    }
                    if !line.isEmpty { paragraph(line + ";", style: nil) }
                    line = part
                }
                paragraph(line, style: nil)
            }
        }
        for i in below where columns[i].fit == .below && !texts[i].isEmpty {
            if columns[i].copiable {
                out.append(contentsOf: repeatElement(space, count: Self.belowIndent))
                out += ShellWord.quoted(texts[i]).utf8
                out.append(0x0A)
            } else {
                paragraph(texts[i], style: i < cells.count ? cells[i].style : nil)
            }
        }
    }

    /// The header line: the titles of the grid columns.
    func header(_ columns: [Column]) -> String {
        inline.map { Self.pad(columns[$0].shownTitle, to: widths[$0], right: columns[$0].alignRight) }
            .joined(separator: String(repeating: " ", count: Self.gap)).trimmingTrailingSpaces()
    }

    /// One line of text for a table: cut at ``longestCell`` with `…`, line breaks and tabs
    /// made visible, a long digest in braces shortened (JSON and CSV keep it whole).
    static func clean(_ text: String) -> String { abbreviatingDigests(truncate(text, to: longestCell)) }

    /// `digest { 9H63MTM4MlsZ3c8d…88 characters }` (Core Data's migration authors) as `digest { 9H63MTM4… }`:
    /// a run of 24 or more base64 characters inside braces keeps its first 8.
    static func abbreviatingDigests(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "{")) else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[...open]
            let inside = rest[rest.index(after: open)..<close]
            let body = inside.trimmingCharacters(in: .whitespaces)
            if body.count >= 24, body.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }) {
                out += " \(body.prefix(8))… "
            } else {
                out += inside
            }
            rest = rest[close...]
        }
        return out + rest
    }

    /// Fits `text` into `width` characters, ending with `…` when cut; control
    /// characters are made visible (``TerminalText``), so a row stays one line and a
    /// store's text sends nothing to the terminal.
    static func truncate(_ text: String, to width: Int) -> String {
        // Only what can be shown is looked at (a cell may hold megabytes); no more bytes than
        // that is never cut, and is not walked character by character.
        guard width != Int.max && text.utf8.count > width else {
            return TerminalText.visible(text, newline: "↵", tab: " ")
        }
        let shown = text.prefix(width)
        let cut = shown.endIndex < text.endIndex
        let visible = cut ? shown.dropLast() : shown
        let clean = TerminalText.visible(String(visible), newline: "↵", tab: " ")
        return cut ? clean + "…" : clean
    }

    static func pad(_ text: String, to width: Int, right: Bool) -> String {
        let n = max(0, width - text.cells)
        let spaces = String(repeating: " ", count: n)
        return right ? spaces + text : text + spaces
    }
}
