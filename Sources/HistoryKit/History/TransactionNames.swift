import Foundation
import GRDB

/// The author, context, bundle and process names of one read's transactions. Where the
/// select leaves them out (``HistorySQL/namesLookedUp``), they are looked up in the
/// string table by reference, as its joins would select them, and kept by reference: a
/// store's transactions share a few names, so each is read (and a String made of it)
/// once per read, not once per transaction.
final class TransactionNames {
    /// A string-table row's name as read: its text, or what it held instead; `found` is
    /// false when no row has the reference or its name is NULL (the inline column counts then).
    private struct Read {
        var found = false
        var value: String?
        var problem: String?
    }

    /// Per name field (author, context, bundle, process): names by reference, for the fields
    /// looked up (nil for the others).
    private var byReference: [[Int64: Read]?]
    /// ``HistorySQL/nameLookup``, when names are looked up.
    private let lookup: Statement?
    /// Names kept per field at most: a store's strings are few, but nothing forbids many.
    private static let limit = 4_096

    /// Names of `sql`'s transaction select, read on `db`.
    convenience init(_ sql: HistorySQL, _ db: Database) throws {
        self.init(sql, lookup: sql.looksUpNames ? try db.makeStatement(sql: HistorySQL.nameLookup) : nil)
    }

    /// Names of `sql`'s transaction select; `lookup` (``HistorySQL/nameLookup``, prepared on the
    /// read's connection) when ``HistorySQL/looksUpNames``.
    init(_ sql: HistorySQL, lookup: Statement?) {
        self.lookup = lookup
        byReference = sql.namesLookedUp.map { $0 ? [:] : nil }
    }

    /// Name `field` (0…3) of a transaction `row`, whose `column` holds the name as selected
    /// and `column + 5` its string reference (`reference` when an integer), read as
    /// `row.text(column, problem:)` reads a name.
    func name(_ field: Int, in row: RawCursor, column: Int32, reference: Int64?, problem: inout String?) throws -> String? {
        guard let lookup, byReference[field] != nil else { return row.text(column, problem: &problem) }
        var read = Read()
        if let reference {
            if let kept = byReference[field]?[reference] {
                read = kept
            } else {
                read = try look(up: reference.databaseValue, with: lookup)
                if byReference[field]?.count ?? 0 >= Self.limit { byReference[field]?.removeAll() }
                byReference[field]?[reference] = read
            }
        } else if let value = row.value(column + 5) {
            // A reference of another type joins the row SQLite compares equal, if any.
            switch value {
            case .integer(let v): read = try look(up: v.databaseValue, with: lookup)
            case .real(let v): read = try look(up: v.databaseValue, with: lookup)
            case .text(let v): read = try look(up: v.databaseValue, with: lookup)
            case .blob(let v): read = try look(up: Data(v).databaseValue, with: lookup)
            }
        }
        guard read.found else { return row.text(column, problem: &problem) }
        if let p = read.problem { problem = p }
        return read.value
    }

    private func look(up reference: DatabaseValue, with statement: Statement) throws -> Read {
        let cursor = try RawCursor(statement, arguments: [reference])
        defer { cursor.finish() }
        guard try cursor.next(), !cursor.isNull(0) else { return Read() }
        var read = Read(found: true)
        read.value = cursor.text(0, problem: &read.problem)
        return read
    }
}
