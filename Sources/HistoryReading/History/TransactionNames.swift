import Foundation
import GRDB

/// The author, context, bundle and process names of one read's transactions. Where the
/// select leaves them out (``HistorySQL/namesLookedUp``), they are looked up in the
/// string table by reference, as its joins would select them, and kept by reference: a
/// store's transactions share a few names, so each is read (and a String made of it)
/// once per read, not once per transaction.
package final class TransactionNames {
    /// A string-table row's name as read: its text, or what it held instead; `found` is
    /// false when no row has the reference or its name is NULL (the inline column counts then).
    /// `place`: the name's place in ``interned`` when it was read without a problem, else -1.
    private struct Read {
        var found = false
        var value: String?
        var problem: String?
        var place: Int32 = -1
    }

    /// Per name field (author, context, bundle, process): names by reference, for the fields
    /// looked up (nil for the others).
    private var byReference: [[Int64: Read]?]
    /// ``HistorySQL/nameLookup``, when names are looked up.
    private let lookup: Statement?
    /// Names kept per field at most: a store's strings are few, but nothing forbids many.
    private static let limit = 4_096
    /// The names read without a problem, each once, in the order first read: what a
    /// ``PlainTransaction`` refers to by place. At most four times ``limit``.
    private var interned: [String] = []
    /// The last plain row's references and its names' places (most rows repeat the one before).
    private var lastReferences: References?
    private var lastPlaces = PlainTransaction.NamePlaces()

    /// A row's four string references (nil: NULL).
    private struct References: Equatable {
        var values: (Int64?, Int64?, Int64?, Int64?) = (nil, nil, nil, nil)
        subscript(field: Int) -> Int64? {
            switch field {
            case 0: values.0
            case 1: values.1
            case 2: values.2
            default: values.3
            }
        }
        static func == (a: Self, b: Self) -> Bool { a.values == b.values }
    }

    /// Names of `sql`'s transaction select, read on `db`.
    package convenience init(_ sql: HistorySQL, _ db: Database) throws {
        self.init(sql, lookup: sql.looksUpNames ? try db.makeStatement(sql: HistorySQL.nameLookup) : nil)
    }

    /// Names of `sql`'s transaction select; `lookup` (``HistorySQL/nameLookup``, prepared on the
    /// read's connection) when ``HistorySQL/looksUpNames``.
    package init(_ sql: HistorySQL, lookup: Statement?) {
        self.lookup = lookup
        byReference = sql.namesLookedUp.map { $0 ? [:] : nil }
    }

    /// Name `field` (0…3) of a transaction `row`, whose `column` holds the name as selected
    /// and `column + 5` its string reference (`reference` when an integer), read as
    /// `row.text(column, problem:)` reads a name.
    func name(_ field: Int, in row: RawCursor, column: Int32, reference: Int64?, problem: inout String?) throws
        -> String?
    {
        guard let lookup, byReference[field] != nil else { return row.text(column, problem: &problem) }
        var read = Read()
        if let reference {
            read = try self.read(field, reference, with: lookup)
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
        if read.problem == nil, let value = read.value, interned.count < 4 * Self.limit {
            read.place = Int32(interned.count)
            interned.append(value)
        }
        return read
    }

    /// The name at `place` of ``PlainTransaction/NamePlaces`` (nil for -1).
    func name(at place: Int32) -> String? { place < 0 ? nil : interned[Int(place)] }

    /// Field `field`'s name by integer `reference`, kept per field once read.
    private func read(_ field: Int, _ reference: Int64, with lookup: Statement) throws -> Read {
        if let kept = byReference[field]?[reference] { return kept }
        let read = try look(up: reference.databaseValue, with: lookup)
        if byReference[field]?.count ?? 0 >= Self.limit { byReference[field]?.removeAll() }
        byReference[field]?[reference] = read
        return read
    }

    /// The places of a transaction `row`'s names when each is looked up by an integer reference
    /// (or has none) and reads without a problem, as ``name(_:in:column:reference:problem:)``
    /// would read it; nil otherwise (the row is read as a ``Transaction`` then).
    func places(in row: RawCursor) throws -> PlainTransaction.NamePlaces? {
        guard let lookup else { return nil }
        func reference(_ column: Int32) -> Int64?? {
            switch row.storageClass(column) {
            case .integer: return .some(row.int64(column))
            case .null: return .some(nil)
            case .real, .text, .blob: return nil
            }
        }
        guard let author = reference(7), let context = reference(8), let bundle = reference(9),
            let process = reference(10)
        else { return nil }
        let references = References(values: (author, context, bundle, process))
        if references == lastReferences {
            // A name the string table lacks is the inline column's, which may differ from the row's before.
            for field in 0..<4 where lastPlaces[field] < 0 && !row.isNull(Int32(field) + 2) { return nil }
            return lastPlaces
        }
        var places = PlainTransaction.NamePlaces()
        for field in 0..<4 {
            guard byReference[field] != nil else { return nil }
            let read = try references[field].map { try self.read(field, $0, with: lookup) } ?? Read()
            if read.found {
                guard read.place >= 0 else { return nil }
                places[field] = read.place
            } else if !row.isNull(Int32(field) + 2) {
                // The inline column counts: not a plain row.
                return nil
            }
        }
        lastReferences = references
        lastPlaces = places
        return places
    }
}
