/// Breaks free text into lines of a width (in terminal cells), at spaces. A
/// time and its zone stay together, and (unless a whole value must break) a
/// date and its time: `2025-03-03 09:00:00.000 +00:00` is one unit. A unit
/// wider than a line breaks after a punctuation mark where it can (a path at a
/// `/`, a selector at a `:`), else at the width; a whole value (`hardBreak`
/// false) is never broken inside a unit: it stays whole on a line of its own.
enum TextWrap {
    static func lines(_ text: String, width: Int, keepingDatesWhole: Bool = true, hardBreak: Bool = true) -> [String] {
        guard width > 0, text.cells > width else { return [text] }
        if let lines = plainLines(text, width: width, keepingDatesWhole: keepingDatesWhole) { return lines }
        var lines: [String] = []
        var current = ""
        // The cells of `current`, kept as it grows (measuring it again per word is quadratic).
        var used = 0
        for unit in units(text, keepingDatesWhole: keepingDatesWhole) {
            var unit = Substring(unit)
            var unitCells = unit.cells
            if !current.isEmpty && used + 1 + unitCells <= width {
                current += " " + unit
                used += 1 + unitCells
                continue
            }
            if !current.isEmpty {
                lines.append(current)
                current = ""
            }
            // A unit wider than a line fills whole lines first.
            while hardBreak && unitCells > width {
                let piece = breakPoint(unit, width: width)
                lines.append(String(piece))
                unit = unit[piece.endIndex...]
                unitCells = unit.cells
            }
            current = String(unit)
            used = unitCells
        }
        lines.append(current)
        return lines
    }

    /// ``lines(_:width:keepingDatesWhole:hardBreak:)`` of ASCII text whose every unit fits a
    /// line (``lineRanges(_:width:keepingDatesWhole:)``); nil for any other text.
    private static func plainLines(_ text: String, width: Int, keepingDatesWhole: Bool) -> [String]? {
        guard text.isPlainASCII else { return nil }
        return text.utf8.withContiguousStorageIfAvailable { bytes -> [String]? in
            var lines: [Range<Int>] = []
            guard appendLines(bytes, width: width, keepingDatesWhole: keepingDatesWhole, to: &lines) else { return nil }
            return lines.map { String(decoding: bytes[$0], as: UTF8.self) }
        } ?? nil
    }

    /// Appends to `lines` the lines ``lines(_:width:keepingDatesWhole:hardBreak:)`` gives plain
    /// ASCII `bytes` (no carriage return) whose every unit fits a line, as ranges of them: the
    /// units are found as ``units(_:keepingDatesWhole:)`` finds them, and each line is a slice
    /// (its units and the single spaces between them). False when a unit is wider than a line
    /// (some lines may have been appended). A table wraps a cell of every row: this is most of
    /// them, and a plain row (``PlainRow``) is wrapped here alone.
    static func appendLines(
        _ bytes: UnsafeBufferPointer<UInt8>, width: Int, keepingDatesWhole: Bool, to lines: inout [Range<Int>]
    ) -> Bool {
        // The line being filled, and the unit being gathered (its last word apart).
        var line = 0..<0
        var used = 0
        var unit = 0..<0
        var lastWord = 0..<0
        var haveUnit = false
        func place() -> Bool {
            guard unit.count <= width else { return false }
            if used > 0 && used + 1 + unit.count <= width {
                line = line.lowerBound..<unit.upperBound
                used += 1 + unit.count
                return true
            }
            if used > 0 { lines.append(line) }
            (line, used) = (unit, unit.count)
            return true
        }
        var wordStart = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: " ") {
            let word = wordStart..<i
            wordStart = i + 1
            if haveUnit,
                (keepingDatesWhole && isTime(bytes[word]) && endsWithDate(bytes, unit))
                    || (isZone(bytes, word) && isTime(bytes[lastWord]))
            {
                unit = unit.lowerBound..<word.upperBound
                lastWord = word
                continue
            }
            if haveUnit { guard place() else { return false } }
            (unit, lastWord, haveUnit) = (word, word, true)
        }
        guard place() else { return false }
        lines.append(line)
        return true
    }

    /// ``isZone(_:)`` of the ASCII bytes in `range`.
    private static func isZone(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard let sign = range.first.map({ bytes[$0] }), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else {
            return false
        }
        return isTime(bytes[range].dropFirst())
    }

    /// ``endsWithDate(_:)`` of the ASCII bytes in `range`: its last ten are three runs of
    /// digits, the first of four, joined by two hyphens.
    private static func endsWithDate(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard range.count >= 10 else { return false }
        let tail = bytes[(range.upperBound - 10)..<range.upperBound]
        let parts = tail.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].count == 4
            && parts.allSatisfy {
                !$0.isEmpty && $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            }
    }

    /// The part of `unit` that goes on a line: up to the last punctuation mark that
    /// leaves the line at least a third full, or as much as fits. Marks between the
    /// parts of a value come first (a path's `/`, a selector's `:`, a tombstone's
    /// `name=` before its value), then the others, so `…/Photos.sqlite` breaks before
    /// the file name, not inside it, and `name="…"` before its quoted value.
    private static func breakPoint(_ unit: Substring, width: Int) -> Substring {
        let fits = unit.prefix(cells: width)
        guard !fits.isEmpty else { return unit.prefix(1) }
        for marks in ["/:=", ",)]", "._-"] {
            if let mark = fits.lastIndex(where: { marks.contains($0) }), fits[...mark].cells >= max(1, width / 3) {
                return fits[...mark]
            }
        }
        return fits
    }

    /// The words of `text`, a zone joined to the time before it and (when `keepingDatesWhole`) a time to its date.
    static func units(_ text: String, keepingDatesWhole: Bool = true) -> [String] {
        var units: [String] = []
        // ASCII splits at its spaces' bytes, without breaking the text into characters.
        let words =
            text.isPlainASCII
            ? text.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { Substring($0) }
            : text.split(separator: " ", omittingEmptySubsequences: false)
        for word in words {
            if let last = units.last,
                (keepingDatesWhole && isTime(word.utf8) && endsWithDate(last)) || (isZone(word) && endsWithTime(last))
            {
                units[units.count - 1] = last + " " + word
            } else {
                units.append(String(word))
            }
        }
        return units
    }

    private static func digits(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }

    /// `YYYY-MM-DD` at the end of a word (`(2025-03-03` counts).
    private static func endsWithDate(_ word: String) -> Bool {
        let tail = word.suffix(10)
        let parts = tail.split(separator: "-", omittingEmptySubsequences: false)
        return tail.count == 10 && parts.count == 3 && parts[0].count == 4 && parts.allSatisfy(digits)
    }

    /// `HH:MM…` at the start of a word's bytes (every word of a table's text is looked at).
    private static func isTime(_ word: some Collection<UInt8>) -> Bool {
        var bytes = word.makeIterator()
        for k in 0..<5 {
            guard let b = bytes.next(),
                k == 2 ? b == UInt8(ascii: ":") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
            else { return false }
        }
        // The fifth character ends there (no combining mark on the last digit).
        return bytes.next().map { $0 < 0x80 } ?? true
    }

    private static func endsWithTime(_ unit: String) -> Bool {
        guard let last = unit.split(separator: " ").last else { return false }
        return isTime(last.utf8)
    }

    /// `+HH:MM` or `-HH:MM`.
    private static func isZone(_ word: Substring) -> Bool {
        (word.utf8.first == UInt8(ascii: "+") || word.utf8.first == UInt8(ascii: "-")) && isTime(word.dropFirst().utf8)
    }
}
