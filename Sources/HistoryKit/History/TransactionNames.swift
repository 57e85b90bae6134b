/// The author, context, bundle and process names of one read's transactions, kept by
/// string reference: a store's transactions share a few names, so each is read from
/// its row (and a String made of it) once, not once per transaction.
final class TransactionNames {
    /// A name column as read: its text, or what it held instead.
    private struct Read {
        let value: String?
        let problem: String?
    }

    /// Per name field (author, context, bundle, process): names by reference, for the fields
    /// whose name is the string table's alone (nil for the others: an inline column can
    /// stand in for a missing reference, so the reference does not decide the name).
    private var byReference: [[Int64: Read]?]
    /// Names kept per field at most: the store's strings are few, but nothing forbids many.
    private static let limit = 4_096

    init(_ sql: HistorySQL) {
        byReference = sql.namesByReference.map { $0 ? [:] : nil }
    }

    /// The text of name `field` (0…3) in `column` of `row`, whose string reference is
    /// `reference` (nil when not an integer): as `row.text(column, problem:)` reads it.
    func name(_ field: Int, in row: RawCursor, column: Int32, reference: Int64?, problem: inout String?) -> String? {
        guard let reference, byReference[field] != nil else { return row.text(column, problem: &problem) }
        if let read = byReference[field]?[reference] {
            if let p = read.problem { problem = p }
            return read.value
        }
        var found: String?
        let value = row.text(column, problem: &found)
        if byReference[field]?.count ?? 0 >= Self.limit { byReference[field]?.removeAll() }
        byReference[field]?[reference] = Read(value: value, problem: found)
        if let found { problem = found }
        return value
    }
}
