/// How many terminal cells text takes: East Asian wide and fullwidth characters
/// and emoji take two, combining marks and zero-width joiners none.
extension Character {
    var cells: Int {
        guard let scalar = unicodeScalars.first else { return 0 }
        if unicodeScalars.count > 1,
            unicodeScalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F })
        {
            return 2
        }
        let v = scalar.value
        // No mark comes before the combining diacritics (asking a scalar's category costs).
        if v < 0x300 { return 1 }
        if v < 0x1100 {
            return scalar.properties.generalCategory == .nonspacingMark
                || scalar.properties.generalCategory == .enclosingMark ? 0 : 1
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}

extension StringProtocol {
    /// Terminal cells of the whole text.
    var cells: Int { isPlainASCII ? utf8.count : reduce(0) { $0 + $1.cells } }

    /// ASCII without a carriage return: a cell per byte (a CR LF is one character, of one cell),
    /// counted without breaking the text into characters, which costs tens of times more.
    var isPlainASCII: Bool {
        utf8.withContiguousStorageIfAvailable { bytes in !bytes.contains { $0 >= 0x80 || $0 == 0x0D } }
            ?? !utf8.contains { $0 >= 0x80 || $0 == 0x0D }
    }

    /// The longest prefix that takes at most `width` cells.
    func prefix(cells width: Int) -> SubSequence {
        if isPlainASCII {
            return self[startIndex..<utf8.index(startIndex, offsetBy: Swift.max(0, Swift.min(width, utf8.count)))]
        }
        var used = 0
        var end = startIndex
        for i in indices {
            let w = self[i].cells
            if used + w > width { break }
            used += w
            end = index(after: i)
        }
        return self[startIndex..<end]
    }
}
