/// How far a long string value is shown where it cannot be shown whole: in a table's cell (in
/// quotes, its length after them), and in an MCP answer whose row would not fit a page otherwise.
public enum TextCut {
    /// Strings of more characters than this are cut to this many.
    public static let limit = 200

    /// `text`'s first ``limit`` characters, `…` and its length in characters; nil when it is not
    /// longer than ``limit``.
    public static func cut(_ text: String) -> String? {
        let count = text.count
        return count > limit ? "\(text.prefix(limit))… (\(count) characters)" : nil
    }
}
