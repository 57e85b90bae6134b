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
            "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstones) )",
            "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
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

    /// Writes `fixture` to `path` (which must not exist yet).
    public static func write(_ fixture: FixtureStore, to path: String) throws {
        var config = Configuration()
        config.journalMode = .default
        let queue = try DatabaseQueue(path: path, configuration: config)
        let numbers = fixture.entityNumbers
        let numberOf = Dictionary(numbers.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        var keepInWAL = 0
        if case .wal(let keep) = fixture.journalMode {
            keepInWAL = keep
            _ = try queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        }
        let committedEarly = max(0, fixture.transactions.count - keepInWAL)
        try queue.inDatabase { db in
            try db.inTransaction {
                try createSchema(db, fixture: fixture, numbers: numbers)
                for (i, tx) in fixture.transactions.prefix(committedEarly).enumerated() {
                    try record(tx, number: Int64(i + 1), db: db, fixture: fixture, numberOf: numberOf)
                }
                return .commit
            }
        }
        if case .wal = fixture.journalMode {
            // Everything so far goes into the main file; the rest stays in the WAL.
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        for (i, tx) in fixture.transactions.enumerated().dropFirst(committedEarly) {
            try queue.inDatabase { db in
                try db.inTransaction {
                    try record(tx, number: Int64(i + 1), db: db, fixture: fixture, numberOf: numberOf)
                    return .commit
                }
            }
        }
        try queue.inDatabase { db in
            try db.inTransaction {
                if let purged = fixture.purgedTransactions, fixture.historyEnabled {
                    try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ?", arguments: [purged.lowerBound, purged.upperBound])
                    try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN ? AND ?", arguments: [purged.lowerBound, purged.upperBound])
                }
                return .commit
            }
        }
        if keepInWAL > 0 {
            // Leave the files as a running app does (recent transactions only in the -wal):
            // copy all three aside before closing checkpoints the WAL, and put them back after.
            let fm = FileManager.default
            let aside = path + ".keep"
            for suffix in ["", "-wal", "-shm"] {
                try? fm.removeItem(atPath: aside + suffix)
                try fm.copyItem(atPath: path + suffix, toPath: aside + suffix)
            }
            try queue.close()
            for suffix in ["", "-wal", "-shm"] {
                try? fm.removeItem(atPath: path + suffix)
                try fm.moveItem(atPath: aside + suffix, toPath: path + suffix)
            }
        } else {
            try queue.close()
        }
    }

    private static func createSchema(_ db: Database, fixture: FixtureStore,
                                     numbers: [(name: String, number: Int64, superNumber: Int64)]) throws {
        try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        for root in numbers where root.superNumber == 0 {
            try db.execute(sql: entityTableDDL(root: root.name, model: fixture.model))
        }
        if fixture.historyEnabled {
            for statement in historyDDL(tombstoneColumns: fixture.tombstoneColumnCount) { try db.execute(sql: statement) }
        }
        var maxByEntity: [String: Int64] = [:]
        for tx in fixture.transactions {
            for c in tx.changes { maxByEntity[c.entity] = max(maxByEntity[c.entity] ?? 0, c.primaryKey) }
        }
        for e in numbers {
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                           arguments: [e.number, e.name, e.superNumber, maxByEntity[e.name] ?? 0])
        }
        if fixture.historyEnabled {
            let changes = fixture.transactions.reduce(0) { $0 + $1.changes.count }
            let strings = Set(fixture.transactions.flatMap { [$0.author, $0.contextName, $0.bundleID, $0.processID].compactMap { $0 } }).count
            for (ent, name, max) in [(16001, "CHANGE", changes), (16002, "TRANSACTION", fixture.transactions.count),
                                     (16003, "TRANSACTIONSTRING", strings)] {
                try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                               arguments: [ent, name, max])
            }
        }
        let hashes = Dictionary(numbers.map { ($0.name, PlistValue.data(Array(repeating: UInt8(truncatingIfNeeded: $0.number), count: 32))) },
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
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                       arguments: [fixture.storeUUID, Data(PropertyList.encodeBinary(metadata))])
        if fixture.writesModelCache {
            try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)",
                           arguments: [Data(ModelArchiveEncoder.modelCache(fixture.model))])
        }
    }

    /// `Z<ROOT>` with `Z_PK`, `Z_ENT`, `Z_OPT` and a column per stored attribute and to-one of the whole hierarchy.
    private static func entityTableDDL(root: String, model: ManagedObjectModel) -> String {
        var columns: [String] = []
        var seen: Set<String> = []
        var frontier = [root]
        while let name = frontier.popLast() {
            for p in model.allProperties(of: name) where p.isStored {
                let column = "Z" + p.name.uppercased()
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

    private static func record(_ tx: FixtureStore.Transaction, number: Int64, db: Database, fixture: FixtureStore,
                               numberOf: [String: Int64]) throws {
        guard fixture.historyEnabled else { return }
        func stringID(_ s: String?) throws -> Int64? {
            guard let s else { return nil }
            if let id = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [s]) { return id }
            try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_ENT, Z_OPT, ZNAME) VALUES (16003, NULL, ?)", arguments: [s])
            return db.lastInsertedRowID
        }
        try db.execute(sql: """
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, 16002, NULL, ?, ?, ?, ?, ?)
            """, arguments: [number, try stringID(tx.author), try stringID(tx.bundleID), try stringID(tx.contextName),
                             try stringID(tx.processID), tx.timestamp])
        for c in tx.changes {
            let layout = SlotLayout(entity: c.entity, model: fixture.model)
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
            let tombstoneColumns = (0..<fixture.tombstoneColumnCount).map { ", ZTOMBSTONE\($0)" }.joined()
            let placeholders = Array(repeating: ", ?", count: fixture.tombstoneColumnCount).joined()
            try db.execute(sql: """
                INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns))
                VALUES (16001, NULL, ?, ?, ?, ?, ?\(placeholders))
                """, arguments: StatementArguments(values))
        }
    }
}
