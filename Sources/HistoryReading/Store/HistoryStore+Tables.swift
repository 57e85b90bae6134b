import GRDB

/// A store's tables as SQL names them, for the queries that read a table by a name the model gives.
extension HistoryStore {
    /// The columns of `table`, a–z in capitals (empty when there is no such table): SQLite
    /// finds them so whatever their case, a capital of another letter it would not.
    package static func columns(of table: String, _ db: Database) throws -> [String] {
        var names: [String] = []
        try db.forEachRow("SELECT name FROM pragma_table_info(?)", arguments: [table]) {
            names.append(ColumnNames.asciiUppercased($0.optionalText(0) ?? ""))
        }
        return names
    }

    /// `name` as an SQL identifier.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
