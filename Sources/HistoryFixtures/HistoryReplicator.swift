import Foundation
import GRDB

/// Makes a large store from a real one: a copy (WAL content included, through
/// SQLite's backup API) whose history is repeated, each copy later in time
/// and numbered after the last, so the real model, entity mix, ZCOLUMNS and
/// tombstones are kept at any size.
public enum HistoryReplicator {
    public struct Result: Sendable {
        public var transactions: Int
        public var changes: Int
    }

    /// Copies `source` to `destination` (which must not exist) and repeats its
    /// history until it holds at least `targetChanges` changes.
    public static func replicate(source: String, to destination: String, targetChanges: Int) throws -> Result {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: destination])
        }
        var readConfig = Configuration()
        readConfig.readonly = true
        let fm = FileManager.default
        // Never plain mode=ro: as root it would create or rewrite -wal and -shm beside the source.
        let walReadable = fm.fileExists(atPath: source + "-wal") && fm.fileExists(atPath: source + "-shm")
        let input = try DatabaseQueue(
            path: "file:\(source)?" + (walReadable ? "mode=ro&readonly_shm=1" : "immutable=1"),
            configuration: readConfig)
        let output = try DatabaseQueue(path: destination)
        try input.backup(to: output)
        try input.close()

        var result = Result(transactions: 0, changes: 0)
        try output.inDatabase { db in
            try db.inTransaction {
                let txColumns = try db.columns(in: "ATRANSACTION").map(\.name)
                let changeColumns = try db.columns(in: "ACHANGE").map(\.name)
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT (SELECT MAX(Z_PK) FROM ATRANSACTION), (SELECT COUNT(*) FROM ATRANSACTION),
                                   (SELECT MIN(ZTIMESTAMP) FROM ATRANSACTION), (SELECT MAX(ZTIMESTAMP) FROM \
                            ATRANSACTION),
                                   (SELECT MAX(Z_PK) FROM ACHANGE), (SELECT COUNT(*) FROM ACHANGE)
                            """), let maxTx: Int64 = row[0], let maxChange: Int64 = row[4], let first: Double = row[2],
                    let last: Double = row[3]
                else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: source]) }
                let txCount: Int = row[1]
                let changeCount: Int = row[5]
                guard changeCount > 0 else {
                    throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: source])
                }
                let copies = max(1, (targetChanges + changeCount - 1) / changeCount)
                let timeSpan = last - first + 1
                func select(_ columns: [String], replacing: [String: String]) -> String {
                    columns.map { replacing[$0] ?? $0 }.joined(separator: ", ")
                }
                for k in stride(from: 1, to: copies, by: 1) {
                    let txOffset = Int64(k) * maxTx
                    let changeOffset = Int64(k) * maxChange
                    try db.execute(
                        sql: "INSERT INTO ATRANSACTION (\(txColumns.joined(separator: ", "))) SELECT "
                            + select(
                                txColumns,
                                replacing: [
                                    "Z_PK": "Z_PK + \(txOffset)", "ZTIMESTAMP": "ZTIMESTAMP + \(Double(k) * timeSpan)",
                                ])
                            + " FROM ATRANSACTION WHERE Z_PK <= \(maxTx)")
                    try db.execute(
                        sql: "INSERT INTO ACHANGE (\(changeColumns.joined(separator: ", "))) SELECT "
                            + select(
                                changeColumns,
                                replacing: [
                                    "Z_PK": "Z_PK + \(changeOffset)", "ZTRANSACTIONID": "ZTRANSACTIONID + \(txOffset)",
                                ])
                            + " FROM ACHANGE WHERE Z_PK <= \(maxChange)")
                }
                try db.execute(
                    sql:
                        """
                        UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ATRANSACTION) WHERE Z_NAME = \
                        'TRANSACTION'
                        """
                )
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ACHANGE) WHERE Z_NAME = 'CHANGE'")
                result = Result(transactions: txCount * copies, changes: changeCount * copies)
                return .commit
            }
        }
        // Leave one self-contained file, as a copied store usually is.
        _ = try output.writeWithoutTransaction { try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try output.close()
        for suffix in ["-wal", "-shm"] { try? fm.removeItem(atPath: destination + suffix) }
        return result
    }
}
