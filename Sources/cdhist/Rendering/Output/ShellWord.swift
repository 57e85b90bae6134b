/// A word as a POSIX shell reads it back: as it is when it holds only characters no shell
/// treats specially, else in single quotes (a quote inside written as `'\''`).
enum ShellWord {
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || "_./:@%+=,-".unicodeScalars.contains(scalar)
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `words` as one command line.
    static func line(_ words: [String]) -> String { words.map(quoted).joined(separator: " ") }

    /// `words` as command lines of at most `width` characters where the words allow, each but
    /// the last ending in ` \` (the shell reads them as one line); later lines indented.
    static func lines(_ words: [String], width: Int?) -> [String] {
        guard let width else { return [line(words)] }
        var lines: [String] = []
        var current = ""
        for word in words.map(quoted) {
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count + 2 <= width {
                current += " " + word
            } else {
                lines.append(current + " \\")
                current = "    " + word
            }
        }
        return lines + [current]
    }
}
