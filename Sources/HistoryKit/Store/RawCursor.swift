import GRDB
import GRDBSQLite

/// Steps a prepared statement through SQLite's C API and reads its columns
/// without GRDB's `Row` (an object and boxed values per row): the one place
/// where history rows are read, so streaming runs at SQLite's own speed.
/// Column reads follow SQLite's conversions, so odd values in a damaged
/// store become odd values, never a trap.
struct RawCursor {
    private let statement: Statement
    private let handle: OpaquePointer

    init(_ statement: Statement, arguments: StatementArguments) throws {
        try statement.setArguments(arguments)
        self.statement = statement
        handle = statement.sqliteStatement
    }

    /// Moves to the next row; false at the end.
    func next() throws -> Bool {
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
    func finish() { sqlite3_reset(handle) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(handle, column) }

    func optionalText(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Blob (or text) bytes; nil for NULL.
    func optionalBytes(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// A tombstone column's value with its SQLite type.
    func tombstone(_ column: Int32) -> TombstoneValue? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return optionalText(column).map { .text($0) }
        case SQLITE_BLOB: return optionalBytes(column).map { .blob($0) }
        default: return nil
        }
    }
}
