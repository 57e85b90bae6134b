/// Breaks free text into lines of a width (in terminal cells), at spaces. A
/// time and its zone stay together, and (unless a whole value must break) a
/// date and its time: `2025-03-03 09:00:00.000 +00:00` is one unit. A unit
/// wider than a line breaks after a punctuation mark where it can (a path at a
/// `/`, a selector at a `:`), else at the width; a whole value (`hardBreak`
/// false) is never broken inside a unit: it stays whole on a line of its own.
enum TextWrap {
    static func lines(_ text: String, width: Int, keepingDatesWhole: Bool = true, hardBreak: Bool = true) -> [String] {
        guard width > 0, text.cells > width else { return [text] }
        var lines: [String] = []
        var current = ""
        for unit in units(text, keepingDatesWhole: keepingDatesWhole) {
            var unit = Substring(unit)
            if !current.isEmpty && current.cells + 1 + unit.cells <= width {
                current += " " + unit
                continue
            }
            if !current.isEmpty {
                lines.append(current)
                current = ""
            }
            // A unit wider than a line fills whole lines first.
            while hardBreak && unit.cells > width {
                let piece = breakPoint(unit, width: width)
                lines.append(String(piece))
                unit = unit[piece.endIndex...]
            }
            current = String(unit)
        }
        lines.append(current)
        return lines
    }

    /// The part of `unit` that goes on a line: up to the last punctuation mark that
    /// leaves the line at least a third full, or as much as fits. Marks between the
    /// parts of a value come first (a path's `/`, a selector's `:`), then the others,
    /// so `…/Photos.sqlite` breaks before the file name, not inside it.
    private static func breakPoint(_ unit: Substring, width: Int) -> Substring {
        let fits = unit.prefix(cells: width)
        guard !fits.isEmpty else { return unit.prefix(1) }
        for marks in ["/:", ",)]", "._-"] {
            if let mark = fits.lastIndex(where: { marks.contains($0) }), fits[...mark].cells >= max(1, width / 3) {
                return fits[...mark]
            }
        }
        return fits
    }

    /// The words of `text`, a zone joined to the time before it and (when `keepingDatesWhole`) a time to its date.
    static func units(_ text: String, keepingDatesWhole: Bool = true) -> [String] {
        var units: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if let last = units.last, (keepingDatesWhole && isTime(word) && endsWithDate(last)) || (isZone(word) && endsWithTime(last)) {
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

    /// `HH:MM…` at the start of a word.
    private static func isTime(_ word: Substring) -> Bool {
        let head = word.prefix(5)
        return head.count == 5 && digits(head.prefix(2)) && head.dropFirst(2).first == ":" && digits(head.suffix(2))
    }

    private static func endsWithTime(_ unit: String) -> Bool {
        guard let last = unit.split(separator: " ").last else { return false }
        return isTime(last)
    }

    /// `+HH:MM` or `-HH:MM`.
    private static func isZone(_ word: Substring) -> Bool {
        word.count >= 6 && (word.first == "+" || word.first == "-") && isTime(word.dropFirst())
    }
}
