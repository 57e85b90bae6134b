/// Splits a command line the way a POSIX shell splits words: blanks separate
/// words, single quotes keep everything, double quotes keep all but `\"` and
/// `\\`, a backslash escapes the next character outside quotes.
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

    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
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
                if inWord { words.append(current); current = ""; inWord = false }
            case "'", "\"":
                quote = c
                inWord = true
            case "\\":
                guard let next = chars.next() else { throw Failure.trailingBackslash }
                current.append(next)
                inWord = true
            default:
                current.append(c)
                inWord = true
            }
        }
        if let q = quote { throw Failure.unterminatedQuote(q) }
        if inWord { words.append(current) }
        return words
    }
}
