import GRDB
import HistoryReading

/// The columns Core Data's own triggers write: derived attributes (`Z_DA_…` triggers set the
/// derived column when its source changes) and count attributes (`ZT_…_INCREMENT`,
/// `_DECREMENT`, `_UPDATE_TO_NULL` keep a count of related rows). Such a column changes in a
/// save without the update's `ZCOLUMNS` bit, by design: SQLite runs the trigger, not the app.
///
/// Read from the triggers' SQL in `sqlite_master`: each `UPDATE table SET column = …` of a
/// trigger's body names one.
public struct TriggerColumns: Sendable {
    /// `TABLE.COLUMN` of every column a trigger sets, in capitals as SQLite compares them.
    private let columns: Set<String>

    /// Whether a trigger sets `column` of `table`.
    public func contains(table: String, column: String) -> Bool {
        columns.contains(Self.key(table, column))
    }

    /// The columns the triggers of `store` set.
    public static func read(_ store: HistoryStore) throws -> TriggerColumns {
        let bodies = try store.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL")
        }
        return TriggerColumns(sql: bodies)
    }

    /// The columns set by the triggers whose `CREATE TRIGGER` statements are `sql`.
    init(sql: [String]) {
        var found = Set<String>()
        for statement in sql {
            for (table, column) in Self.assignments(in: statement) { found.insert(Self.key(table, column)) }
        }
        columns = found
    }

    private static func key(_ table: String, _ column: String) -> String {
        ColumnNames.asciiUppercased(table) + "." + ColumnNames.asciiUppercased(column)
    }

    /// The `(table, column)` of each assignment of each `UPDATE … SET` in `sql`.
    static func assignments(in sql: String) -> [(String, String)] {
        let tokens = SQLTokens(sql).tokens
        var found: [(String, String)] = []
        var i = 0
        while i < tokens.count {
            defer { i += 1 }
            guard tokens[i].isWord("UPDATE") else { continue }
            var at = i + 1
            // UPDATE OR REPLACE (or another conflict clause) names its table after it.
            if at + 1 < tokens.count, tokens[at].isWord("OR") { at += 2 }
            // A table named with its schema (`main.ZX`) is the table after the dot.
            if at + 2 < tokens.count, tokens[at].name != nil, tokens[at + 1].text == "." { at += 2 }
            guard at + 1 < tokens.count, let table = tokens[at].name, tokens[at + 1].isWord("SET") else { continue }
            at += 2
            // Assignments up to WHERE, FROM, RETURNING, `;` or END at the statement's own depth.
            var depth = 0
            // CASE … END inside an assignment: its END is not the trigger's.
            var cases = 0
            var expectColumn = true
            while at < tokens.count {
                let token = tokens[at]
                if token.text == "(" {
                    depth += 1
                } else if token.text == ")" {
                    depth -= 1
                    if depth < 0 { break }
                } else if token.isWord("CASE") {
                    cases += 1
                } else if token.isWord("END") && cases > 0 {
                    cases -= 1
                } else if depth == 0 {
                    if token.text == ";" || ["WHERE", "FROM", "RETURNING", "END"].contains(where: token.isWord) {
                        break
                    }
                    if token.text == "," {
                        expectColumn = true
                    } else if expectColumn, let column = token.name, at + 1 < tokens.count, tokens[at + 1].text == "=" {
                        found.append((table, column))
                        expectColumn = false
                    }
                }
                at += 1
            }
            i = at - 1
        }
        return found
    }
}

/// The tokens of an SQL statement, enough to find its `UPDATE … SET` assignments: words and
/// quoted names, string literals (kept whole, so that their text is never read as SQL), and
/// each other character on its own.
private struct SQLTokens {
    struct Token {
        var text: String
        /// The identifier it names: a bare word, or a quoted name without its quotes.
        var name: String?

        func isWord(_ word: String) -> Bool {
            name != nil && !text.hasPrefix("\"") && !text.hasPrefix("[") && !text.hasPrefix("`")
                && ColumnNames.asciiUppercased(text) == word
        }
    }

    let tokens: [Token]

    init(_ sql: String) {
        var tokens: [Token] = []
        let scalars = Array(sql.unicodeScalars)
        var i = 0
        func isWordScalar(_ s: Unicode.Scalar) -> Bool {
            s == "_" || s == "$" || s.properties.isAlphabetic || ("0"..."9").contains(s)
        }
        while i < scalars.count {
            let s = scalars[i]
            if s.properties.isWhitespace {
                i += 1
            } else if s == "-", i + 1 < scalars.count, scalars[i + 1] == "-" {
                while i < scalars.count, scalars[i] != "\n" { i += 1 }
            } else if s == "/", i + 1 < scalars.count, scalars[i + 1] == "*" {
                i += 2
                while i + 1 < scalars.count, !(scalars[i] == "*" && scalars[i + 1] == "/") { i += 1 }
                i += 2
            } else if s == "'" || s == "\"" || s == "`" || s == "[" {
                // A quoted string or name; a doubled quote inside stands for one.
                let close: Unicode.Scalar = s == "[" ? "]" : s
                var j = i + 1
                var inner = String.UnicodeScalarView()
                while j < scalars.count {
                    if scalars[j] == close {
                        if close != "]", j + 1 < scalars.count, scalars[j + 1] == close {
                            inner.append(close)
                            j += 2
                            continue
                        }
                        break
                    }
                    inner.append(scalars[j])
                    j += 1
                }
                let text = String(String.UnicodeScalarView(scalars[i..<min(j + 1, scalars.count)]))
                tokens.append(Token(text: text, name: s == "'" ? nil : String(inner)))
                i = j + 1
            } else if isWordScalar(s) {
                var j = i
                while j < scalars.count, isWordScalar(scalars[j]) { j += 1 }
                let word = String(String.UnicodeScalarView(scalars[i..<j]))
                tokens.append(Token(text: word, name: word))
                i = j
            } else {
                tokens.append(Token(text: String(s), name: nil))
                i += 1
            }
        }
        self.tokens = tokens
    }
}
