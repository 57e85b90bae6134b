import HistoryKit

/// How the views say that a reader of history keeps its position where no file shows it.
enum HiddenReaderText {
    /// For `actors` and the report: an actor not in the table.
    static func actorNote(_ r: HiddenReader) -> String {
        """
        Not in this table: \(r.name). \(capitalized(r.explanation)). Its position cannot be shown: when a purge \
        deletes history it has not read, \(r.purgeEffect).
        """
    }

    /// For a purge preview: what deleting may cost it.
    static func purgeWarning(_ r: HiddenReader) -> String {
        """
        \(r.name), whose position no file shows: if it has not read what this deletes, \(r.purgeEffect) (a full \
        re-index)
        """
    }

    static func json(_ r: HiddenReader) -> JSONValue {
        .object([
            ("kind", .string(r.kind.rawValue)), ("name", .string(r.name)),
            ("evidence", .array(r.evidence.map { .string($0) })),
            ("explanation", .string(r.explanation)), ("purgeEffect", .string(r.purgeEffect)),
        ])
    }

    private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
