import CWALView
import Foundation
import GRDB
import GRDBSQLite

/// A `-wal` that does not fit its main file: SQLite finds the store malformed with it, yet reads
/// the main file alone (through the read-only view at save 0, which shows the log's header only).
/// The two come from different databases, or from different times of one (a main file restored
/// without its log).
enum WALMisfit {
    /// Why the failure reading `location` lies in its `-wal`; nil when the main file alone fails
    /// too, when there is no log with frames, or when the view cannot be opened.
    static func reason(location: String) -> String? {
        let walPath = location + "-wal"
        guard let head = FileHandle(forReadingAtPath: location) else { return nil }
        defer { try? head.close() }
        let bytes = [UInt8]((try? head.read(upToCount: 100)) ?? Data())
        guard let header = try? SQLiteHeader(bytes: bytes, path: location), header.isWAL,
            let log = try? WALLog.read(walPath, pageSize: header.pageSize), !log.commits.isEmpty,
            cdhist_wal_view_register() == SQLITE_OK
        else { return nil }
        var config = Configuration()
        config.readonly = true
        config.prepareDatabase(StoreConnection.prepareView)
        do {
            let queue = try DatabaseQueue(
                path: StoreConnection.viewURI(location, log: log, throughCommit: 0), configuration: config)
            defer { try? queue.close() }
            // The schema and Core Data's metadata read without the log.
            try queue.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                _ = try Row.fetchOne(db, sql: "SELECT * FROM Z_METADATA LIMIT 1")
            }
        } catch {
            return nil
        }
        return "the main file alone reads, so its -wal (\(log.commits.count) commits) does not fit it: "
            + "the two come from different databases, or the main file from another time; "
            + "to read the main file alone, copy it without its -wal"
    }
}
