import Foundation
import GRDB

/// A history-tracked Core Data store, opened read-only.
///
/// Opening checks, in order: the file exists and is a regular file, it is
/// SQLite and not truncated, it has Core Data's tables, and it has history
/// tables. Reading never changes the store, its `-wal`/`-shm`, or the folder
/// (see ``StoreConnection`` for how).
public final class HistoryStore {
    /// The path given to ``open(_:options:)``.
    public let path: String
    /// `Z_METADATA`.
    public let metadata: StoreMetadata
    /// `Z_PRIMARYKEY`.
    public let catalog: EntityCatalog
    /// Columns of the history tables.
    public let schema: HistorySchema
    let connection: StoreConnection

    /// File sizes of the main file, `-wal`, `-shm` and `-journal`.
    public var files: StoreFiles { connection.files }
    /// What is worth telling about how the store was opened.
    public var notices: [StoreNotice] { connection.notices }
    /// `storeID` of every transaction: the store UUID.
    public var storeUUID: String { metadata.uuid }

    /// Opens `path` read-only and reads its metadata, catalog and schema.
    public static func open(_ path: String, options: OpenOptions = OpenOptions()) throws -> HistoryStore {
        try HistoryStore(path: path, options: options)
    }

    private init(path: String, options: OpenOptions) throws {
        self.path = path
        connection = try StoreConnection(path: path, options: options)
        let loaded = try connection.read { db -> (StoreMetadata, EntityCatalog, HistorySchema) in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            let missingCoreData = ["Z_METADATA", "Z_PRIMARYKEY"].filter { !tables.contains($0) }
            guard missingCoreData.isEmpty else { throw StoreError.notCoreData(path: path, missing: missingCoreData) }
            guard tables.contains("ATRANSACTION"), tables.contains("ACHANGE") else {
                throw StoreError.historyNotEnabled(path: path)
            }
            let schema = try Self.readSchema(db, tables: tables, path: path)
            return (try Self.readMetadata(db, path: path), try Self.readCatalog(db), schema)
        }
        (metadata, catalog, schema) = loaded
    }

    /// Makes the statement running on this store fail soon with an "interrupted"
    /// error (safe from another thread: Ctrl-C in the REPL).
    public func interrupt() {
        connection.queue.interrupt()
    }

    /// Runs `body` on the store's connection; SQLite errors become ``StoreError``s.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try connection.read(body)
    }

    private static func readMetadata(_ db: Database, path: String) throws -> StoreMetadata {
        let columns = Set(try db.columns(in: "Z_METADATA").map { $0.name.uppercased() })
        guard columns.contains("Z_UUID") else {
            throw StoreError.notCoreData(path: path, missing: ["Z_METADATA.Z_UUID"])
        }
        let versionExpr = columns.contains("Z_VERSION") ? "Z_VERSION" : "NULL"
        // Converted by SQLite: GRDB traps converting a number to String or Data (a damaged
        // record can hold any type whatever the column's affinity).
        let plistExpr = columns.contains("Z_PLIST") ? "CAST(Z_PLIST AS BLOB)" : "NULL"
        guard let row = try Row.fetchOne(db, sql: "SELECT \(versionExpr), CAST(Z_UUID AS TEXT), \(plistExpr) FROM Z_METADATA LIMIT 1") else {
            throw StoreError.notCoreData(path: path, missing: ["Z_METADATA row"])
        }
        let uuid: String = (row[1] as String?) ?? ""
        var plist: [String: PlistValue] = [:]
        var problem: String?
        if let blob = row[2] as Data? {
            do {
                if let dict = try PropertyList.decode(blob).dictionaryValue { plist = dict } else { problem = "Z_PLIST is not a dictionary" }
            } catch {
                problem = "Z_PLIST: \(error)"
            }
        } else {
            problem = "Z_PLIST is empty"
        }
        return StoreMetadata(uuid: uuid, version: row[0], plist: plist, plistProblem: problem)
    }

    private static func readCatalog(_ db: Database) throws -> EntityCatalog {
        // Only integers are entity numbers (GRDB traps converting TEXT or REAL inf to Int64), names are cast to text.
        let rows = try Row.fetchAll(db, sql: """
            SELECT Z_ENT, CAST(Z_NAME AS TEXT), CASE WHEN typeof(Z_SUPER) = 'integer' THEN Z_SUPER END,
                   CASE WHEN typeof(Z_MAX) = 'integer' THEN Z_MAX END
            FROM Z_PRIMARYKEY
            """)
        return EntityCatalog(rows: rows.compactMap { row in
            guard let number = row[0] as Int64?, let name = row[1] as String? else { return nil }
            return CatalogEntity(number: number, name: name, superNumber: row[2] ?? 0, max: row[3] ?? 0)
        })
    }

    private static func readSchema(_ db: Database, tables: Set<String>, path: String) throws -> HistorySchema {
        let tx = Set(try db.columns(in: "ATRANSACTION").map { $0.name.uppercased() })
        let ch = Set(try db.columns(in: "ACHANGE").map { $0.name.uppercased() })
        let missingTx = ["Z_PK", "ZTIMESTAMP"].filter { !tx.contains($0) }
        let missingCh = ["Z_PK", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID"].filter { !ch.contains($0) }
        guard missingTx.isEmpty, missingCh.isEmpty else {
            let names = missingTx.map { "ATRANSACTION.\($0)" } + missingCh.map { "ACHANGE.\($0)" }
            throw StoreError.unexpectedSchema(path: path, reason: "missing \(names.joined(separator: ", "))")
        }
        let tombstones = ch.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("ZTOMBSTONE"), let n = Int(name.dropFirst("ZTOMBSTONE".count)) else { return nil }
            return (n, name)
        }.sorted { $0.0 < $1.0 }.map(\.1)
        return HistorySchema(transactionColumns: tx, changeColumns: ch, tombstoneColumns: tombstones,
                             hasStringTable: tables.contains("ATRANSACTIONSTRING"),
                             hasModelCacheTable: tables.contains("Z_MODELCACHE"))
    }
}
