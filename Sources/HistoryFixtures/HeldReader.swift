import GRDB

/// A reader that takes a snapshot of a WAL store and keeps it until closed, as an app's reader
/// does between its fetches: while it holds the log, a checkpoint copies frames only up to its
/// snapshot and the log cannot restart.
public enum HeldReader {
    public static func open(_ path: String) throws -> DatabaseQueue {
        // GRDB lets a transaction outlive a call only when told so.
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: config)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        }
        return reader
    }
}
