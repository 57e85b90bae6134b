/// Breaks free text into lines of a width, at spaces; a word longer than the
/// width is cut across lines (nothing is dropped).
enum TextWrap {
    static func lines(_ text: String, width: Int) -> [String] {
        guard width > 0, text.count > width else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            var word = Substring(word)
            if current.isEmpty {
                // A word wider than a line fills whole lines first.
                while word.count > width {
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = ""
                while word.count > width {
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }
}
