import Foundation
import GRDB
import GRDBSQLite

/// Steps a prepared statement through SQLite's C API and reads its columns
/// without GRDB's `Row` (an object and boxed values per row): the one place
/// where history rows are read, so streaming runs at SQLite's own speed.
/// Column reads follow SQLite's conversions, so odd values in a damaged
/// store become odd values, never a trap.
package struct RawCursor {
    private let statement: Statement
    private let handle: OpaquePointer

    package init(_ statement: Statement, arguments: StatementArguments) throws {
        try statement.setArguments(arguments)
        self.statement = statement
        handle = statement.sqliteStatement
    }

    /// Moves to the next row; false at the end.
    package func next() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Ends the statement's read (it stays prepared for the next use).
    package func finish() { sqlite3_reset(handle) }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The SQLite storage class of a column in the current row.
    package func storageClass(_ column: Int32) -> StorageClass {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// The column's value as a message shows it: `TEXT "yesterday"`, `REAL 1.5`,
    /// `BLOB of 2 bytes (0102)`; long values are cut.
    package func describe(_ column: Int32) -> String {
        let limit = 40
        switch storageClass(column) {
        case .integer: return "INTEGER \(int64(column))"
        case .real: return "REAL \(sqlite3_column_double(handle, column))"
        case .null: return "NULL"
        case .text:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let text = sqlite3_column_text(handle, column) else { return "TEXT ''" }
            let shown = String(decoding: UnsafeBufferPointer(start: text, count: min(count, limit)), as: UTF8.self)
            return "TEXT \(String(reflecting: shown))" + (count > limit ? "… (\(count) bytes)" : "")
        case .blob:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return "BLOB of 0 bytes" }
            let hex = [UInt8](UnsafeRawBufferPointer(start: pointer, count: min(count, limit / 2))).hexString
            return "BLOB of \(count) bytes (\(hex)\(count > limit / 2 ? "…" : ""))"
        }
    }

    /// A number column (INTEGER or REAL); nil for NULL and for TEXT or BLOB,
    /// which `problem` then describes.
    package func number(_ column: Int32, problem: inout String?) -> Double? {
        switch storageClass(column) {
        case .integer, .real: return sqlite3_column_double(handle, column)
        case .null: return nil
        case .text, .blob:
            problem = describe(column)
            return nil
        }
    }

    /// An INTEGER column; nil for NULL and for any other class, which `problem` then describes.
    package func integer(_ column: Int32, problem: inout String?) -> Int64? {
        switch storageClass(column) {
        case .integer: return sqlite3_column_int64(handle, column)
        case .null: return nil
        case .real, .text, .blob:
            problem = describe(column)
            return nil
        }
    }

    /// A TEXT column; nil for NULL and for a BLOB, which `problem` then describes.
    /// (Numbers in a TEXT column are read as their text, as SQLite converts them.)
    package func text(_ column: Int32, problem: inout String?) -> String? {
        if storageClass(column) == .blob {
            problem = describe(column)
            return nil
        }
        return optionalText(column)
    }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : sqlite3_column_int64(handle, column)
    }

    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(handle, column) }

    package func optionalText(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Blob (or text) bytes; nil for NULL.
    package func optionalBytes(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// A BLOB (or text) column's bytes in place, valid until the cursor moves (empty for NULL).
    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    /// A BLOB column's length and last byte (nil when empty), read in place without copying it.
    func blobLengthAndLastByte(_ column: Int32) -> (length: Int, last: UInt8?) {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return (0, nil) }
        return (count, pointer.load(fromByteOffset: count - 1, as: UInt8.self))
    }

    /// The number of columns of the statement's rows.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Whether `column` holds what `other`'s `otherColumn` holds: the same storage class and
    /// the same value, a REAL by its bits and TEXT or a BLOB by its bytes, compared in place.
    package func holdsSame(_ column: Int32, as other: RawCursor, _ otherColumn: Int32) -> Bool {
        let type = sqlite3_column_type(handle, column)
        guard type == sqlite3_column_type(other.handle, otherColumn) else { return false }
        switch type {
        case SQLITE_INTEGER: return int64(column) == other.int64(otherColumn)
        case SQLITE_FLOAT: return double(column).bitPattern == other.double(otherColumn).bitPattern
        case SQLITE_TEXT, SQLITE_BLOB:
            let (a, b) = (blob(column), other.blob(otherColumn))
            guard a.count == b.count else { return false }
            guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }
            return memcmp(pa, pb, a.count) == 0
        default: return true
        }
    }

    /// A column's value with its SQLite type; nil for NULL.
    package func value(_ column: Int32) -> StoredValue? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return optionalText(column).map { .text($0) }
        case SQLITE_BLOB: return optionalBytes(column).map { .blob($0) }
        default: return nil
        }
    }
}

/// SQLite's storage classes.
package enum StorageClass: Equatable {
    case integer, real, text, blob, null
}

extension Database {
    /// Calls `body` with each row of `sql`, read through a ``RawCursor`` (so no
    /// value of an unexpected type can trap, as GRDB's `Row` decoding would).
    package func forEachRow(_ sql: String, arguments: StatementArguments = [], _ body: (RawCursor) throws -> Void)
        throws
    {
        let cursor = try RawCursor(makeStatement(sql: sql), arguments: arguments)
        defer { cursor.finish() }
        while try cursor.next() { try body(cursor) }
    }

    /// `body` applied to the first row of `sql`; nil when there is none.
    package func firstRow<T>(_ sql: String, arguments: StatementArguments = [], _ body: (RawCursor) throws -> T) throws
        -> T?
    {
        let cursor = try RawCursor(makeStatement(sql: sql), arguments: arguments)
        defer { cursor.finish() }
        return try cursor.next() ? body(cursor) : nil
    }
}
