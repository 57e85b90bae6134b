import Foundation

/// SQLite's `file:` URIs, which carry open flags (`mode=ro`, `immutable=1`) with the path.
enum SQLiteURI {
    /// The URI of `path` (made absolute) with `query`; `%`, `?` and `#` in the path escaped.
    static func file(_ path: String, _ query: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var escaped = ""
        for ch in absolute.unicodeScalars {
            switch ch {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(ch)
            }
        }
        return "file:\(escaped)?\(query)"
    }
}
