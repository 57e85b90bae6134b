import GRDBSQLite

/// The SQLite library this process reads and writes stores with.
public enum SQLiteLibrary {
    /// Its version, as `sqlite3_libversion()` gives it (the system's libsqlite3 on Linux).
    public static var version: String { String(cString: sqlite3_libversion()) }
}
