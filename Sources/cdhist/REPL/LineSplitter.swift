/// Splits a command line the way a POSIX shell splits words: blanks separate
/// words, single quotes keep everything, double quotes keep all but `\"` and
/// `\\`, a backslash escapes the next character outside quotes.
/// The quoting of a word that the line editor completes (``quotedIfNeeded(_:)``) reads back as the value.
enum LineSplitter {
    enum Failure: Error, CustomStringConvertible {
        case unterminatedQuote(Character)
        case trailingBackslash

        var description: String {
            switch self {
            case .unterminatedQuote(let q): return "unterminated \(q) quote"
            case .trailingBackslash: return "a backslash ends the line"
            }
        }
    }

    /// A word, and whether any of it was quoted or escaped (`'-x'` is a value, not an option).
    struct Word: Equatable {
        var text: String
        var isQuoted: Bool
    }

    static func split(_ line: String) throws -> [String] {
        try words(line).map(\.text)
    }

    static func words(_ line: String) throws -> [Word] {
        var words: [Word] = []
        var current = ""
        var inWord = false
        var quoted = false
        var quote: Character?
        var chars = line.makeIterator()
        while let c = chars.next() {
            if let q = quote {
                if c == q {
                    quote = nil
                } else if q == "\"" && c == "\\" {
                    guard let next = chars.next() else { throw Failure.unterminatedQuote(q) }
                    if next != "\"" && next != "\\" { current.append("\\") }
                    current.append(next)
                } else {
                    current.append(c)
                }
                continue
            }
            switch c {
            case " ", "\t", "\n", "\r":
                if inWord {
                    words.append(Word(text: current, isQuoted: quoted))
                    current = ""
                    inWord = false
                    quoted = false
                }
            case "'", "\"":
                quote = c
                inWord = true
                quoted = true
            case "\\":
                guard let next = chars.next() else { throw Failure.trailingBackslash }
                current.append(next)
                inWord = true
                quoted = true
            default:
                current.append(c)
                inWord = true
            }
        }
        if let q = quote { throw Failure.unterminatedQuote(q) }
        if inWord { words.append(Word(text: current, isQuoted: quoted)) }
        return words
    }

    /// `value` as a word of a line with a backslash before each character the line would
    /// otherwise split at or read specially (what libedit keeps in one word when it completes).
    static func escaped(_ value: String) -> String {
        var out = ""
        for c in value {
            if " \t\n\r'\"\\#".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// `value` as a word of a line: as it is when it needs no quoting, else in single
    /// quotes (a `'` inside as `'\''`); a value beginning with `-` is quoted too, so
    /// the line runner passes it as the option's value (`--context '-[Foo bar]'`).
    static func quotedIfNeeded(_ value: String) -> String {
        let special = value.contains { " \t\n\r'\"\\#".contains($0) } || value.hasPrefix("-")
        guard special, !value.isEmpty else { return value }
        return "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
