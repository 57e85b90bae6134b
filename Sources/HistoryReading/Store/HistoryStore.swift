import Foundation
import GRDB

/// A history-tracked Core Data store, opened read-only.
///
/// Opening checks, in order: the file exists and is a regular file, it is
/// SQLite and not truncated, it has Core Data's tables, and it has history
/// tables. Reading never changes the store, its `-wal`/`-shm`, or the folder
/// (see `StoreConnection` for how).
public final class HistoryStore {
    /// The path given to ``open(_:options:)``: a file's, or a name inside a backup or an
    /// archive (``PackedReference``), whose files are read where they lie or from a private copy.
    public let path: String
    /// `Z_METADATA`.
    public let metadata: StoreMetadata
    /// `Z_PRIMARYKEY`.
    public let catalog: EntityCatalog
    /// Columns of the history tables.
    public let schema: HistorySchema
    package let connection: StoreConnection
    /// Values of `Z_METADATA` and `Z_PRIMARYKEY` of a type Core Data does not write.
    private let valueNotices: [StoreNotice]
    /// The main file and `-wal` as they were when the store was opened.
    private let openedFiles: StoreFileState?

    /// Whether the files were written (or replaced) since the store was opened: an app
    /// committed, checkpointed or purged. A store opened without its `-wal`, or from a
    /// private copy, does not see such changes until it is opened again.
    /// (`stat` only: this connection is open, so `-shm` is not opened beside it.)
    public var changedOnDisk: Bool { StoreFileState.read(readPath, walIndex: false) != openedFiles }
    /// The backup or archive the store is read from, when its name goes through one.
    public let packedIn: PackedReference?
    /// For a store in a backup or an archive: the size of the `-shm` held beside it there (read
    /// from a copy, the store is opened without it); nil otherwise or when it holds none.
    public let packedShmSize: Int64?
    /// The main file SQLite reads: `path`, or a backup's hashed file or private copy.
    private let readPath: String

    /// File sizes of the main file, `-wal`, `-shm` and `-journal`.
    public var files: StoreFiles { connection.files }
    /// What is worth telling about how the store was opened and its bookkeeping tables read.
    public var notices: [StoreNotice] { connection.notices + valueNotices }
    /// The frames of the `-wal` a damaged frame hides from SQLite, and so from this store (nil
    /// when none does; a live store's log is not judged while its app may be writing it).
    public var hiddenWALFrames: WALLog.HiddenFrames? {
        for case .walDamaged(_, let hidden) in connection.notices { return hidden }
        return nil
    }
    /// Whether another process has the store open now (a connection's lock on its `-shm`): an app
    /// that may be writing it, whose actors are judged by the wall clock, not the store's own time.
    public var isLive: Bool {
        savePoint == nil && files.shmSize != nil && StoreConnection.hasLiveConnection(shm: files.shmPath)
    }
    /// The save of its `-wal` the store is read at (``OpenOptions/atSave``); nil: as it is.
    public var savePoint: SavePoint? { connection.savePoint }
    /// How the store's files were opened (never for writing).
    public var access: StoreAccess { connection.access }
    /// Whether the store is in WAL mode (else it uses a rollback journal).
    public var usesWAL: Bool { connection.usesWAL }
    /// `storeID` of every transaction: the store UUID.
    public var storeUUID: String { metadata.uuid }

    /// Opens `path` read-only and reads its metadata, catalog and schema.
    public static func open(_ path: String, options: OpenOptions = OpenOptions()) throws -> HistoryStore {
        try HistoryStore(path: path, options: options)
    }

    /// Opens the store `reference` names in a backup or an archive the caller has open already.
    package static func open(_ reference: PackedReference, located files: PackedStoreFiles, options: OpenOptions) throws
        -> HistoryStore
    {
        try HistoryStore(path: reference.name, options: options, packed: (reference, files))
    }

    private init(path: String, options: OpenOptions, packed given: (PackedReference, PackedStoreFiles)? = nil) throws {
        self.path = path
        packedIn = given?.0 ?? PackedReference.resolve(path)
        let packed = try given?.1 ?? packedIn.map { try PackedStoreFiles.locate($0) }
        readPath = packed?.path ?? path
        packedShmSize = packed?.shmSize
        // Taken before opening: a commit after it shows as a change, never the other way round.
        openedFiles = StoreFileState.read(readPath, walIndex: false)
        do {
            connection = try StoreConnection(path: path, options: options, files: packed)
        } catch {
            if let dir = packed?.assembledIn { try? FileManager.default.removeItem(at: dir) }
            throw error
        }
        let location = connection.files.location
        let loaded: (StoreMetadata, EntityCatalog, HistorySchema, [String])
        do {
            loaded = try Self.readBookkeeping(connection, path: path, location: location)
        } catch let error as StoreError {
            // Read as it was after a partial save, the files need not make one database.
            guard let point = connection.savePoint, let why = point.why, error.isDamage else { throw error }
            throw StoreError.unreadablePartialSave(path: path, save: point.save, reason: why)
        }
        (metadata, catalog, schema) = (loaded.0, loaded.1, loaded.2)
        valueNotices = loaded.3.map { StoreNotice.unexpectedValue(path: path, detail: $0) }
    }

    /// Core Data's bookkeeping tables and the history schema, read once on opening; the values
    /// of a type Core Data does not write are said as problems.
    private static func readBookkeeping(
        _ connection: StoreConnection, path: String,
        location: String
    ) throws -> (StoreMetadata, EntityCatalog, HistorySchema, [String]) {
        try connection.read { db -> (StoreMetadata, EntityCatalog, HistorySchema, [String]) in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            let missingCoreData = ["Z_METADATA", "Z_PRIMARYKEY"].filter { !tables.contains($0) }
            guard missingCoreData.isEmpty else {
                // A -wal of another database, laid over a Core Data store, shows that database's tables.
                if let misfit = WALMisfit.reason(location: location) {
                    throw StoreError.corrupt(
                        path: path,
                        reason: "with its -wal it has no \(missingCoreData.joined(separator: ", ")) table; \(misfit)")
                }
                throw StoreError.notCoreData(path: path, missing: missingCoreData)
            }
            guard tables.contains("ATRANSACTION"), tables.contains("ACHANGE") else {
                throw StoreError.historyNotEnabled(path: path)
            }
            let schema = try Self.readSchema(db, tables: tables, path: path)
            var problems: [String] = []
            let metadata = try Self.readMetadata(db, path: path, problems: &problems)
            return (metadata, try Self.readCatalog(db, problems: &problems), schema, problems)
        }
    }

    /// Makes the statement running on this store, and every later one until
    /// ``clearInterrupt()``, fail soon with an "interrupted" error (safe from
    /// another thread: Ctrl-C in the REPL).
    public func interrupt() {
        connection.interrupt()
    }

    /// Closes the store's connection, so that a writer (``PurgeExecutor``) has the files to
    /// itself: a read-only connection would share its read-only `-shm` mapping. Every later read
    /// fails with ``StoreError/closed(path:)``.
    public func close() {
        connection.close()
    }

    /// Whether ``close()`` was called: open the store again to read it.
    public var isClosed: Bool { connection.isClosed }

    /// Lets reads run again after ``interrupt()``: the session's next command.
    public func clearInterrupt() {
        connection.clearInterrupt()
    }

    /// Runs `body` on the store's connection; SQLite errors become ``StoreError``s.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try connection.read(body)
    }

    /// Runs `body`, whose reads of this store (on this thread) all see one
    /// snapshot: what they return agrees even while an app commits.
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try connection.read { _ in try body() }
    }

    /// Runs `body` and, on a second connection at the same time, `beside`
    /// (see ``StoreConnection/read(_:beside:)``).
    package func read<A, B>(_ body: (Database) throws -> A, beside: @escaping (Database) throws -> B) throws -> (A, B) {
        try connection.read(body, beside: beside)
    }

    private static func readMetadata(_ db: Database, path: String, problems: inout [String]) throws -> StoreMetadata {
        let columns = Set(try db.columns(in: "Z_METADATA").map { $0.name.uppercased() })
        guard columns.contains("Z_UUID") else {
            throw StoreError.notCoreData(path: path, missing: ["Z_METADATA.Z_UUID"])
        }
        let versionExpr = columns.contains("Z_VERSION") ? "Z_VERSION" : "NULL"
        let plistExpr = columns.contains("Z_PLIST") ? "Z_PLIST" : "NULL"
        let read = try db.firstRow("SELECT \(versionExpr), Z_UUID, \(plistExpr) FROM Z_METADATA LIMIT 1") { row in
            var found: String?
            let version = row.integer(0, problem: &found)
            if let found { problems.append("Z_METADATA.Z_VERSION holds \(found), not an integer; read as null") }
            // A UUID of another type is read as SQLite converts it to text (tokens then name another store).
            if row.storageClass(1) != .text && row.storageClass(1) != .null {
                problems.append("Z_METADATA.Z_UUID holds \(row.describe(1)), not text; read as SQLite's text of it")
            }
            let uuid = row.optionalText(1) ?? ""
            var plist: [String: PlistValue] = [:]
            var problem: String?
            switch row.storageClass(2) {
            case .null:
                problem = "Z_PLIST is empty"
            case .blob, .text:
                do {
                    if let dict = try PropertyList.decode(Data(row.optionalBytes(2) ?? [])).dictionaryValue {
                        plist = dict
                    } else {
                        problem = "Z_PLIST is not a dictionary"
                    }
                } catch {
                    problem = "Z_PLIST: \(error)"
                }
            case .integer, .real:
                problem = "Z_PLIST holds \(row.describe(2)), not a property list"
            }
            return StoreMetadata(uuid: uuid, version: version, plist: plist, plistProblem: problem)
        }
        guard let read else { throw StoreError.notCoreData(path: path, missing: ["Z_METADATA row"]) }
        return read
    }

    private static func readCatalog(_ db: Database, problems: inout [String]) throws -> EntityCatalog {
        var rows: [CatalogEntity] = []
        try db.forEachRow("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY") { row in
            var found: String?
            guard let number = row.integer(0, problem: &found) else {
                problems.append("Z_PRIMARYKEY has a row whose Z_ENT holds \(found ?? "NULL"), not an integer; ignored")
                return
            }
            guard let name = row.text(1, problem: &found) else {
                problems.append(
                    "Z_PRIMARYKEY Z_ENT \(number): Z_NAME holds \(found ?? "NULL"), not text; the row is ignored")
                return
            }
            func integer(_ column: Int32, _ label: String) -> Int64 {
                found = nil
                if let value = row.integer(column, problem: &found) { return value }
                if let found {
                    problems.append(
                        "Z_PRIMARYKEY Z_ENT \(number) (\(name)): \(label) holds \(found), not an integer; read as 0")
                }
                return 0
            }
            rows.append(
                CatalogEntity(number: number, name: name, superNumber: integer(2, "Z_SUPER"), max: integer(3, "Z_MAX")))
        }
        return EntityCatalog(rows: rows)
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
        return HistorySchema(
            transactionColumns: tx, changeColumns: ch, tombstoneColumns: tombstones,
            hasStringTable: tables.contains("ATRANSACTIONSTRING"),
            hasModelCacheTable: tables.contains("Z_MODELCACHE"))
    }
}
