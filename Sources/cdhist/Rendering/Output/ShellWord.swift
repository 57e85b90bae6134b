/// A word as a POSIX shell reads it back: as it is when it holds only characters no shell
/// treats specially, else in single quotes (a quote inside written as `'\''`).
enum ShellWord {
    static func quoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || "_./:@%+=,-".unicodeScalars.contains(scalar)
            }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `words` as one command line.
    static func line(_ words: [String]) -> String { words.map(quoted).joined(separator: " ") }

    /// `words` as command lines of at most `width` characters, `indent` included, that the shell
    /// reads as one: a line ending in ` \` goes on with the next word on an indented line. A word
    /// too long for any line (a deep path) is broken after a `/` where it can be, the line ending
    /// in `\` with no space and the rest of the word at the start of the next line, unindented,
    /// so that the lines copied as they are give the word back whole.
    static func lines(_ words: [String], width: Int?, indent: String = "") -> [String] {
        guard let width else { return [indent + line(words)] }
        let following = indent + "    "
        var lines: [String] = []
        var current = ""
        for word in words {
            let shown = quoted(word)
            if current.isEmpty, indent.count + shown.count + 2 <= width {
                current = indent + shown
            } else if !current.isEmpty, current.count + 1 + shown.count + 2 <= width {
                current += " " + shown
            } else if !current.isEmpty, following.count + shown.count + 2 <= width {
                lines.append(ended(current, width))
                current = following + shown
            } else {
                if current.isEmpty {
                    current = indent
                } else {
                    lines.append(ended(current, width))
                    current = following
                }
                let pieces = broken(word, first: max(1, width - current.count - 1), rest: max(1, width - 1))
                for piece in pieces.dropLast() {
                    lines.append(current + piece + "\\")
                    current = ""
                }
                current += pieces.last ?? ""
            }
        }
        return lines + [current]
    }

    /// `line` ended so that the shell reads on: ` \`, or `\` alone when the line is a character
    /// short of room (the next line is indented: the words stay apart).
    private static func ended(_ line: String, _ width: Int) -> String {
        line + (line.count + 2 <= width ? " \\" : "\\")
    }

    /// `word` in quoted pieces that written one after another make the word, the first at most
    /// `first` characters, the others at most `rest`: cut after a `/` where a piece can end there,
    /// else between characters.
    static func broken(_ word: String, first: Int, rest: Int) -> [String] {
        var segments: [String] = []
        var segment = ""
        for character in word {
            segment.append(character)
            if character == "/" {
                segments.append(segment)
                segment = ""
            }
        }
        if !segment.isEmpty { segments.append(segment) }
        var pieces: [String] = []
        var piece = ""
        var limit = first
        func close() {
            pieces.append(piece)
            piece = ""
            limit = rest
        }
        for segment in segments {
            let shown = quoted(segment)
            if piece.count + shown.count <= limit {
                piece += shown
                continue
            }
            if !piece.isEmpty { close() }
            if shown.count <= limit {
                piece = shown
                continue
            }
            // A name longer than a line: cut between characters, each part quoted on its own.
            var part = ""
            for character in segment {
                if quoted(part + String(character)).count > limit, !part.isEmpty {
                    piece = quoted(part)
                    close()
                    part = ""
                }
                part.append(character)
            }
            piece = quoted(part)
        }
        if !piece.isEmpty || pieces.isEmpty { pieces.append(piece) }
        return pieces
    }
}
