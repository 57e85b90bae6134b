import Foundation
import GRDB
import HistoryKit

/// Writes a ``FixtureStore`` as Core Data would: the same DDL for the
/// history tables, `Z_PRIMARYKEY`, `Z_METADATA` (binary plist) and
/// `Z_MODELCACHE` (raw-DEFLATE keyed archive), one table per root entity.
public enum StoreWriter {
    /// The history DDL Core Data uses (framework versions 973–1522).
    public static func historyDDL(tombstoneColumns: Int) -> [String] {
        let tombstones = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0) BLOB" }.joined()
        return [
            """
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
            ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstones) )
            """,
            """
            CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS \
            INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR \
            VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )
            """,
            "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
            "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ]
    }

    /// Writes `fixture` to `path` (which must not exist yet). `generated`
    /// transactions (count, maker) follow the fixture's own, without being
    /// held in memory: for large benchmark stores.
    public static func write(
        _ fixture: FixtureStore, to path: String,
        generated: (count: Int, make: (Int) -> FixtureStore.Transaction)? = nil
    ) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: path])
        }
        var config = Configuration()
        config.journalMode = .default
        let queue = try DatabaseQueue(path: path, configuration: config)
        var keepInWAL = 0
        if case .wal(let keep) = fixture.journalMode {
            keepInWAL = keep
            _ = try queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        }
        let recorder = Recorder(fixture: fixture)
        let early = max(0, fixture.transactions.count - keepInWAL)
        try queue.inDatabase { db in
            try db.inTransaction {
                try createSchema(db, fixture: fixture, numbers: recorder.numbers)
                try writeRows(db, fixture: fixture, numbers: recorder.numbers)
                for tx in fixture.transactions.prefix(early) { try recorder.record(tx, db: db) }
                if let generated {
                    for i in 0..<generated.count { try recorder.record(generated.make(i), db: db) }
                }
                try recorder.writePrimaryKeys(db)
                return .commit
            }
        }
        if case .wal = fixture.journalMode {
            // Everything so far goes into the main file; the rest stays in the WAL.
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        for tx in fixture.transactions.dropFirst(early) {
            try queue.inDatabase { db in
                try db.inTransaction {
                    try recorder.record(tx, db: db)
                    try recorder.writePrimaryKeys(db)
                    return .commit
                }
            }
        }
        if let purged = fixture.purgedTransactions, fixture.historyEnabled {
            try queue.inDatabase { db in
                try db.inTransaction {
                    try db.execute(
                        sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ?",
                        arguments: [purged.lowerBound, purged.upperBound])
                    try db.execute(
                        sql: "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?",
                        arguments: [purged.lowerBound, purged.upperBound])
                    return .commit
                }
            }
        }
        let reader = try writeSaveSteps(fixture, queue: queue, path: path, recorder: recorder)
        if keepInWAL > 0 || !fixture.saveSteps.isEmpty {
            // Leave the files as a running app does (recent transactions only in the -wal):
            // copy all three aside before closing checkpoints the WAL, and put them back after.
            let fm = FileManager.default
            let aside = path + ".keep"
            for suffix in ["", "-wal", "-shm"] {
                try? fm.removeItem(atPath: aside + suffix)
                try fm.copyItem(atPath: path + suffix, toPath: aside + suffix)
            }
            try reader?.close()
            try queue.close()
            for suffix in ["", "-wal", "-shm"] {
                try? fm.removeItem(atPath: path + suffix)
                try fm.moveItem(atPath: aside + suffix, toPath: path + suffix)
            }
        } else {
            try queue.close()
        }
    }

    private static func createSchema(
        _ db: Database, fixture: FixtureStore,
        numbers: [(name: String, number: Int64, superNumber: Int64)]
    ) throws {
        try db.execute(
            sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"
        )
        try db.execute(
            sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        let numberOf = Dictionary(numbers.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        let columnNames = ColumnNames(model: fixture.model) { numberOf[$0] }
        for root in numbers where root.superNumber == 0 {
            try db.execute(sql: entityTableDDL(root: root.name, model: fixture.model, columnNames: columnNames))
        }
        if fixture.historyEnabled {
            for statement in historyDDL(tombstoneColumns: fixture.tombstoneColumnCount) {
                try db.execute(sql: statement)
            }
        }
        let hashes = Dictionary(
            numbers.map {
                ($0.name, PlistValue.data(Array(repeating: UInt8(truncatingIfNeeded: $0.number), count: 32)))
            },
            uniquingKeysWith: { a, _ in a })
        let metadata: PlistValue = .dictionary([
            "NSStoreType": .string("SQLite"),
            "NSStoreUUID": .string(fixture.storeUUID),
            "NSPersistenceFrameworkVersion": .integer(fixture.frameworkVersion),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "NSStoreModelVersionIdentifiers": .array(fixture.model.versionIdentifiers.map { .string($0) }),
            "NSStoreModelVersionHashes": .dictionary(hashes),
            "_NSAutoVacuumLevel": .string("2"),
        ])
        try db.execute(
            sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            arguments: [fixture.storeUUID, Data(PropertyList.encodeBinary(metadata))])
        if fixture.writesModelCache {
            try db.execute(
                sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)",
                arguments: [Data(ModelArchiveEncoder.modelCache(fixture.model))])
        }
    }

    /// A many-to-many relationship's join table, as Core Data names it (seen in real stores): after the
    /// side of the lower entity number, `Z_<a><NAME>`, with a column per side, `Z_<a><INVERSE>` holding
    /// that side's keys and `Z_<b><NAME>` the other's (a, b: the entities declaring the relationships).
    struct JoinTable: Equatable {
        var name: String
        var lowColumn: String
        var highColumn: String
        /// The relationship of the lower side, and its entity.
        var lowEntity: String
        var lowRelationship: String
    }

    static func joinTables(_ model: ManagedObjectModel, numbers: [(name: String, number: Int64, superNumber: Int64)])
        -> [JoinTable]
    {
        let numberOf = Dictionary(numbers.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        var tables: [JoinTable] = []
        for entity in model.entities {
            for p in entity.properties {
                guard let r = p.relationship, r.isToMany, let destination = r.destinationEntityName,
                    let inverse = r.inverseName,
                    let declaring = model.inheritanceChain(of: destination).last(where: {
                        $0.property(named: inverse) != nil
                    }),
                    declaring.property(named: inverse)?.relationship?.isToMany == true,
                    let a = numberOf[entity.name], let b = numberOf[declaring.name],
                    a < b || (a == b && p.name < inverse)
                else { continue }
                tables.append(
                    JoinTable(
                        name: "Z_\(a)\(p.name.uppercased())", lowColumn: "Z_\(a)\(inverse.uppercased())",
                        highColumn: "Z_\(b)\(p.name.uppercased())", lowEntity: entity.name, lowRelationship: p.name))
            }
        }
        return tables
    }

    /// Runs the fixture's save steps on `queue`; the reader holding the log, when a step made one.
    private static func writeSaveSteps(_ fixture: FixtureStore, queue: DatabaseQueue, path: String, recorder: Recorder)
        throws -> DatabaseQueue?
    {
        var reader: DatabaseQueue?
        let rows = RowWriter(fixture: fixture, numbers: recorder.numbers)
        for step in fixture.saveSteps {
            switch step {
            case .save(let save):
                try queue.inDatabase { db in
                    try db.inTransaction {
                        if let tx = save.transaction { try recorder.record(tx, db: db) }
                        for row in save.inserted { try rows.insert(row, db) }
                        for row in save.updated { try rows.update(row, db) }
                        for row in save.deleted { try rows.delete(row, db) }
                        if let purge = save.purge {
                            try db.execute(
                                sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ?",
                                arguments: [purge.lowerBound, purge.upperBound])
                            try db.execute(
                                sql: "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?",
                                arguments: [purge.lowerBound, purge.upperBound])
                        }
                        if save.transaction != nil { try recorder.writePrimaryKeys(db) }
                        return .commit
                    }
                }
            case .checkpointHoldingAReader:
                reader = try HeldReader.open(path)
                try queue.writeWithoutTransaction { _ = try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            case .checkpoint:
                try queue.writeWithoutTransaction { _ = try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            }
        }
        return reader
    }

    private static func writeRows(
        _ db: Database, fixture: FixtureStore, numbers: [(name: String, number: Int64, superNumber: Int64)]
    ) throws {
        guard !fixture.rows.isEmpty else { return }
        let writer = RowWriter(fixture: fixture, numbers: numbers)
        for join in writer.joins {
            try db.execute(
                sql:
                    """
                    CREATE TABLE \(join.name) ( \(join.lowColumn) INTEGER, \(join.highColumn) INTEGER, PRIMARY \
                    KEY (\(join.lowColumn), \(join.highColumn)) )
                    """
            )
        }
        for row in fixture.rows { try writer.insert(row, db) }
    }

    /// `Z<ROOT>` with `Z_PK`, `Z_ENT`, `Z_OPT` and a column per stored attribute and to-one of the whole
    /// hierarchy, named as Core Data names them (``ColumnNames``: numbered where siblings share a name).
    private static func entityTableDDL(root: String, model: ManagedObjectModel, columnNames: ColumnNames) -> String {
        var columns: [String] = []
        var seen: Set<String> = []
        var frontier = [root]
        while let name = frontier.popLast() {
            for p in model.entity(named: name)?.properties ?? [] where p.isStored {
                let column = columnNames.column(entity: name, property: p.name) ?? ColumnNames.base(p.name)
                switch p.kind {
                case .attribute(let a) where seen.insert(column).inserted:
                    columns.append("\(column) \(sqlType(a.type))")
                case .relationship(let r) where !r.isToMany && seen.insert(column).inserted:
                    columns.append("\(column) INTEGER")
                default:
                    break
                }
            }
            frontier += model.subentityNames(of: name)
        }
        return "CREATE TABLE Z\(root.uppercased()) ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER"
            + columns.map { ", \($0)" }.joined() + " )"
    }

    private static func sqlType(_ t: AttributeType) -> String {
        switch t {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float, .date: return "TIMESTAMP"
        case .decimal: return "DECIMAL"
        case .string, .uri: return "VARCHAR"
        default: return "BLOB"
        }
    }
}

/// Records transactions with cached statements, string IDs and layouts, and
/// keeps the `Z_MAX` values `Z_PRIMARYKEY` needs.
private final class Recorder {
    let fixture: FixtureStore
    let numbers: [(name: String, number: Int64, superNumber: Int64)]
    private let numberOf: [String: Int64]
    private var layouts: [String: SlotLayout] = [:]
    private var strings: [String: Int64] = [:]
    private var maxPK: [String: Int64] = [:]
    private var transactionCount: Int64 = 0
    private var changeCount: Int64 = 0

    init(fixture: FixtureStore) {
        self.fixture = fixture
        numbers = fixture.entityNumbers
        numberOf = Dictionary(numbers.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        for e in fixture.model.entities { layouts[e.name] = SlotLayout(entity: e.name, model: fixture.model) }
    }

    func record(_ tx: FixtureStore.Transaction, db: Database) throws {
        guard fixture.historyEnabled else { return }
        transactionCount += 1
        let number = transactionCount
        try db.cachedStatement(
            sql: """
                INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, \
                ZTIMESTAMP)
                VALUES (?, 16002, NULL, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            number, try stringID(tx.author, db), try stringID(tx.bundleID, db),
            try stringID(tx.contextName, db), try stringID(tx.processID, db), tx.timestamp,
        ])
        let columnsList = (0..<fixture.tombstoneColumnCount).map { ", ZTOMBSTONE\($0)" }.joined()
        let placeholders = String(repeating: ", ?", count: fixture.tombstoneColumnCount)
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, \
                ZCOLUMNS\(columnsList))
                VALUES (16001, NULL, ?, ?, ?, ?, ?\(placeholders))
                """)
        for c in tx.changes {
            changeCount += 1
            maxPK[c.entity] = max(maxPK[c.entity] ?? 0, c.primaryKey)
            let layout = layouts[c.entity]
            var columns: Data?
            if c.type == .update {
                if let raw = c.rawColumns {
                    columns = Data(raw)
                } else if let layout {
                    var bytes = [UInt8](repeating: 0, count: layout.byteLength)
                    for name in c.updated {
                        if let slot = layout.slots.first(where: { $0.propertyName == name }) {
                            bytes[slot.index >> 3] |= 0x80 >> UInt8(slot.index & 7)
                        }
                    }
                    columns = Data(bytes)
                }
            }
            let entityNumber: Int64 = c.rawEntityNumber ?? numberOf[c.entity] ?? 0
            var values: [DatabaseValueConvertible?] = [c.type.rawValue, entityNumber, c.primaryKey, number, columns]
            let tombstoneNames = layout?.tombstoneAttributes ?? []
            for i in 0..<fixture.tombstoneColumnCount {
                guard c.type == .delete, i < tombstoneNames.count, let v = c.tombstone[tombstoneNames[i]] else {
                    values.append(nil)
                    continue
                }
                switch v {
                case .integer(let n): values.append(n)
                case .real(let d): values.append(d)
                case .text(let s): values.append(s)
                case .blob(let b): values.append(Data(b))
                }
            }
            try insert.execute(arguments: StatementArguments(values))
        }
    }

    /// Rewrites `Z_PRIMARYKEY` with the current maxima.
    func writePrimaryKeys(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY")
        for e in numbers {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [e.number, e.name, e.superNumber, maxPK[e.name] ?? 0])
        }
        guard fixture.historyEnabled else { return }
        for (ent, name, max) in [
            (16001, "CHANGE", changeCount), (16002, "TRANSACTION", transactionCount),
            (16003, "TRANSACTIONSTRING", Int64(strings.count)),
        ] {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                arguments: [ent, name, max])
        }
    }

    private func stringID(_ s: String?, _ db: Database) throws -> Int64? {
        guard let s else { return nil }
        if let id = strings[s] { return id }
        try db.cachedStatement(sql: "INSERT INTO ATRANSACTIONSTRING (Z_ENT, Z_OPT, ZNAME) VALUES (16003, NULL, ?)")
            .execute(arguments: [s])
        strings[s] = db.lastInsertedRowID
        return db.lastInsertedRowID
    }
}
