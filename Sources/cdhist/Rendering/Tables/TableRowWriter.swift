/// Writes a streamed table's rows as bytes in its layout, on any thread: a row of cells as
/// ``TableLayout`` writes it, and a plain row (``PlainRow``) the same, byte for byte, without
/// making text of its cells, where it can. (A class: the threads' rows share one, not a copy each.)
final class TableRowWriter {
    let layout: TableLayout
    let columns: [Column]
    /// Colour (nil: none). A plain row is written plain only without it.
    let style: ((String, Style) -> String)?
    /// Each column's title as a table shows it, as bytes; nil where it is not plain ASCII.
    private let titles: [[UInt8]?]
    /// What a plain row is written from, apart (a column's fit and alignment read per cell).
    private let inline: [Int], below: [Int], widths: [Int], total: Int?
    private let fits: [Column.Fit], alignRight: [Bool]
    /// The columns under the row that are labelled there ("Title: value"), in order.
    private let labelledBelow: [Int]
    private let pairSeparator = Array("; ".utf8), titleSeparator = Array(": ".utf8)
    private static let space = UInt8(ascii: " ")

    init(layout: TableLayout, columns: [Column], style: ((String, Style) -> String)?) {
        self.layout = layout
        self.columns = columns
        self.style = style
        titles = columns.map { column in
            let title = column.shownTitle
            return title.isPlainASCII ? Array(title.utf8) : nil
        }
        (inline, below, widths, total) = (layout.inline, layout.below, layout.widths, layout.total)
        fits = columns.map(\.fit)
        alignRight = columns.map(\.alignRight)
        labelledBelow = layout.below.filter { columns[$0].fit != .below }
    }

    /// Appends the lines of a row of cells to `out`.
    func write(_ cells: [Cell], to out: inout [UInt8]) {
        layout.write(cells, columns: columns, style: style, to: &out)
    }

    /// Appends the lines of a plain row to `out`; of `cells` (the same row as text) when the row
    /// is not plain, is in colour, or needs what only ``TableLayout/write(_:columns:style:to:)``
    /// does (a word broken inside, a column always under its row).
    func write(_ row: inout PlainRow, orCells cells: () -> [Cell], to out: inout [UInt8]) {
        if style != nil || !writePlain(&row, to: &out) { write(cells(), to: &out) }
    }

    /// ``TableLayout/write(_:columns:style:to:)`` without colour of a row whose cells are shown as
    /// they are: false, with nothing written, when the row needs more.
    private func writePlain(_ row: inout PlainRow, to out: inout [UInt8]) -> Bool {
        guard row.isPlain else { return false }
        for i in below where fits[i] == .below && !row.cell(i).isEmpty { return false }
        var fitsAll = true
        if total != nil {
            for i in inline where widths[i] > 0 && row.cell(i).count > widths[i] {
                fitsAll = false
                break
            }
        }
        let start = out.count
        var lines = row.lines
        var firsts = row.firsts
        var belowLine = row.below
        (row.lines, row.firsts, row.below) = ([], [], [])
        defer { (row.lines, row.firsts, row.below) = (lines, firsts, belowLine) }
        let written = row.bytes.withUnsafeBufferPointer { bytes -> Bool in
            if fitsAll {
                writeLines(1, row, bytes, { n, _ in row.cell(inline[n]) }, to: &out)
                return writeBelow(row, bytes, moved: [], line: &belowLine, lines: &lines, to: &out)
            }
            // As the layout writes a row that does not fit: a value wider than its column goes
            // under the row, other cells wrap within their columns (a whole value only at spaces).
            // Column n's lines are lines[firsts[n]..<firsts[n + 1]].
            var moved: [Int] = []
            lines.removeAll(keepingCapacity: true)
            firsts.removeAll(keepingCapacity: true)
            firsts.append(0)
            var height = 1
            for i in inline {
                let cell = row.cell(i)
                let width = widths[i]
                if case .value = fits[i], width > 0, cell.count > width {
                    moved.append(i)
                } else if width > 0, cell.count > width {
                    let first = lines.count
                    guard
                        TextWrap.appendLines(
                            UnsafeBufferPointer(rebasing: bytes[cell]), width: width,
                            keepingDatesWhole: fits[i] != .whole, to: &lines)
                    else { return false }
                    for k in first..<lines.count {
                        lines[k] = (lines[k].lowerBound + cell.lowerBound)..<(lines[k].upperBound + cell.lowerBound)
                    }
                } else {
                    lines.append(cell)
                }
                firsts.append(lines.count)
                height = max(height, lines.count - firsts[firsts.count - 2])
            }
            lines.withUnsafeBufferPointer { lines in
                firsts.withUnsafeBufferPointer { firsts in
                    writeLines(
                        height, row, bytes, { n, k in firsts[n] + k < firsts[n + 1] ? lines[firsts[n] + k] : 0..<0 },
                        to: &out)
                }
            }
            return writeBelow(row, bytes, moved: moved, line: &belowLine, lines: &lines, to: &out)
        }
        if !written { out.removeSubrange(start...) }
        return written
    }

    /// `height` grid lines: in line `k`, the bytes in `piece(n, k)` in the `n`th grid column, padded
    /// to its width, without trailing spaces. Written through a cursor (no check per piece), then
    /// appended at once.
    private func writeLines(
        _ height: Int, _ row: PlainRow, _ bytes: UnsafeBufferPointer<UInt8>, _ piece: (Int, Int) -> Range<Int>,
        to out: inout [UInt8]
    ) {
        // A line holds each grid column's width, or more when a cell is wider, and the gaps.
        var lineRoom = TableLayout.gap * inline.count + 1
        for i in inline { lineRoom += max(widths[i], row.cell(i).count) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: height * lineRoom) { room in
            var w = ByteCursor(room)
            for k in 0..<height {
                let start = w.count
                for (n, i) in inline.enumerated() {
                    if n > 0 { w.repeating(Self.space, count: TableLayout.gap) }
                    let piece = piece(n, k)
                    let padding = widths[i] - piece.count
                    if alignRight[i] { w.repeating(Self.space, count: padding) }
                    w.bytes(UnsafeBufferPointer(rebasing: bytes[piece]))
                    if !alignRight[i] { w.repeating(Self.space, count: padding) }
                }
                w.dropTrailing(Self.space, downTo: start)
                w.byte(0x0A)
            }
            out.append(contentsOf: w.written)
        }
    }

    /// Appends `count` spaces (none when it is not positive).
    private func spaces(_ count: Int, to out: inout [UInt8]) {
        guard count > 0 else { return }
        for _ in 0..<count { out.append(Self.space) }
    }

    /// Under the row, as the layout writes it: the columns moved there as "Title: value; …",
    /// on one line where it fits, else each pair kept on a line where it fits one (gathered in
    /// `line`, wrapped with `lines`). False when a title is not plain or a pair must break inside
    /// a word.
    private func writeBelow(
        _ row: PlainRow, _ bytes: UnsafeBufferPointer<UInt8>, moved: [Int], line: inout [UInt8],
        lines: inout [Range<Int>], to out: inout [UInt8]
    ) -> Bool {
        // The columns labelled under the row: those moved there with a value (not empty, not `-`).
        let candidates = moved.isEmpty ? labelledBelow : (below + moved).sorted().filter { fits[$0] != .below }
        func shown(_ i: Int) -> Bool {
            let cell = row.cell(i)
            return !cell.isEmpty && !(cell.count == 1 && bytes[cell.lowerBound] == UInt8(ascii: "-"))
        }
        var count = 0
        var oneLine = -2
        for i in candidates where shown(i) {
            guard let title = titles[i] else { return false }
            count += 1
            oneLine += 2 + title.count + 2 + row.cell(i).count
        }
        guard count > 0 else { return true }
        let room = (total ?? Int.max) - TableLayout.belowIndent
        if room <= 0 || oneLine <= room {
            spaces(TableLayout.belowIndent, to: &out)
            var first = true
            for i in candidates where shown(i) {
                if !first { out += pairSeparator }
                first = false
                out += titles[i] ?? []
                out += titleSeparator
                out += UnsafeBufferPointer(rebasing: bytes[row.cell(i)])
            }
            out.append(0x0A)
            return true
        }
        func paragraph(_ text: [UInt8]) -> Bool {
            guard text.count > room else {
                spaces(TableLayout.belowIndent, to: &out)
                out += text
                out.append(0x0A)
                return true
            }
            lines.removeAll(keepingCapacity: true)
            guard
                text.withUnsafeBufferPointer({
                    TextWrap.appendLines($0, width: room, keepingDatesWhole: true, to: &lines)
                })
            else { return false }
            for range in lines {
                spaces(TableLayout.belowIndent, to: &out)
                out += text[range]
                out.append(0x0A)
            }
            return true
        }
        line.removeAll(keepingCapacity: true)
        for i in candidates where shown(i) {
            let title = titles[i] ?? []
            let cell = row.cell(i)
            if !line.isEmpty, line.count + 2 + title.count + 2 + cell.count <= room {
                line += pairSeparator
            } else {
                if !line.isEmpty {
                    line.append(UInt8(ascii: ";"))
                    guard paragraph(line) else { return false }
                }
                line.removeAll(keepingCapacity: true)
            }
            line += title
            line += titleSeparator
            line += UnsafeBufferPointer(rebasing: bytes[cell])
        }
        return paragraph(line)
    }
}
