import Foundation
import GRDB
import HistoryKit

/// CloudKit mirroring's tables to add to a store, as `NSPersistentCloudKitContainer`
/// leaves them: the history token its exporter has reached, per-object export
/// progress, a zone, a database and recent events.
public struct MirroringFixture: Sendable {
    /// Where the mirroring state is kept.
    public enum Layout: Sendable {
        /// Every `ANSCK…` table.
        case allTables
        /// Only these tables (an OS version that had fewer).
        case only(Set<String>)
        /// No table: the keys in the store's metadata (`Z_METADATA`), as the first release kept them.
        case storeMetadata
    }

    /// One mirrored object (a row of `ANSCKRECORDMETADATA`).
    public struct Record: Sendable {
        public var entityNumber: Int64
        public var primaryKey: Int64
        public var lastExported: Int64?
        public var needsUpload: Bool
        public var needsCloudDelete: Bool
        public var pendingExport: Int64?

        public init(
            entityNumber: Int64, primaryKey: Int64, lastExported: Int64?, needsUpload: Bool = false,
            needsCloudDelete: Bool = false, pendingExport: Int64? = nil
        ) {
            self.entityNumber = entityNumber
            self.primaryKey = primaryKey
            self.lastExported = lastExported
            self.needsUpload = needsUpload
            self.needsCloudDelete = needsCloudDelete
            self.pendingExport = pendingExport
        }
    }

    /// One `NSPersistentCloudKitContainer.Event` (`ANSCKEVENT`).
    public struct Event: Sendable {
        /// 0 setup, 1 import, 2 export.
        public var type: Int64
        public var started: Double
        public var ended: Double?
        public var succeeded: Bool
        public var error: (domain: String, code: Int64)?

        public init(
            type: Int64, started: Double, ended: Double?, succeeded: Bool, error: (domain: String, code: Int64)? = nil
        ) {
            self.type = type
            self.started = started
            self.ended = ended
            self.succeeded = succeeded
            self.error = error
        }
    }

    public var layout: Layout
    /// The bytes of `NSCloudKitMirroringDelegateLastHistoryTokenKey`'s value (an
    /// archived token, or anything to test bad input); nil: no such entry.
    public var token: [UInt8]?
    public var records: [Record]
    /// Columns of `ANSCKRECORDMETADATA` left out (an older OS version).
    public var omittedRecordColumns: Set<String>
    /// When the zone and the database were last fetched (Cocoa seconds).
    public var lastFetch: Double?
    public var events: [Event]

    public init(
        layout: Layout = .allTables, token: [UInt8]?, records: [Record] = [], omittedRecordColumns: Set<String> = [],
        lastFetch: Double? = nil, events: [Event] = []
    ) {
        self.layout = layout
        self.token = token
        self.records = records
        self.omittedRecordColumns = omittedRecordColumns
        self.lastFetch = lastFetch
        self.events = events
    }

    /// The archived token of transaction `number` of `store`, as the exporter keeps it.
    public static func token(_ number: Int64, store: String) -> [UInt8] {
        HistoryTokenDecoder.encode(HistoryToken(storeUUID: store, transactionNumber: number))
    }
}

/// Adds a ``MirroringFixture`` to an existing store.
public enum MirroringWriter {
    /// The tables real stores have (merge-state spec, section 7).
    public static let tableNames = [
        "ANSCKDATABASEMETADATA", "ANSCKEVENT", "ANSCKEXPORTEDOBJECT", "ANSCKEXPORTMETADATA", "ANSCKEXPORTOPERATION",
        "ANSCKHISTORYANALYZERSTATE", "ANSCKIMPORTOPERATION", "ANSCKIMPORTPENDINGRELATIONSHIP", "ANSCKMETADATAENTRY",
        "ANSCKMIRROREDRELATIONSHIP", "ANSCKRECORDMETADATA", "ANSCKRECORDZONEMETADATA", "ANSCKRECORDZONEMOVERECEIPT",
        "ANSCKRECORDZONEQUERY",
    ]

    /// `ANSCKMETADATAENTRY` as a real store (iOS 26 era) has it.
    static let metadataEntryDDL = """
        CREATE TABLE ANSCKMETADATAENTRY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
        ZBOOLVALUENUM INTEGER, ZINTEGERVALUE INTEGER, ZDATEVALUE TIMESTAMP, ZKEY VARCHAR, \
        ZSTRINGVALUE VARCHAR, ZTRANSFORMEDVALUE BLOB )
        """

    /// `ANSCKRECORDMETADATA`'s columns as a real store (iOS 26 era) has them, and its indexes.
    static let recordColumns: [(name: String, type: String)] = [
        ("Z_PK", "INTEGER PRIMARY KEY"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER"), ("ZENTITYID", "INTEGER"),
        ("ZENTITYPK", "INTEGER"),
        ("ZLASTEXPORTEDTRANSACTIONNUMBER", "INTEGER"), ("ZNEEDSCLOUDDELETE", "INTEGER"),
        ("ZNEEDSLOCALDELETE", "INTEGER"),
        ("ZNEEDSUPLOAD", "INTEGER"), ("ZPENDINGEXPORTCHANGETYPENUMBER", "INTEGER"),
        ("ZPENDINGEXPORTTRANSACTIONNUMBER", "INTEGER"),
        ("ZENCODEDRECORDASSET", "INTEGER"), ("ZRECORDZONE", "INTEGER"), ("ZSYSTEMFIELDSASSET", "INTEGER"),
        ("ZCKRECORDNAME", "VARCHAR"),
    ]
    static let recordIndexes = [
        """
        CREATE UNIQUE INDEX Z_NSCKRecordMetadata_UNIQUE_entityId_entityPK ON ANSCKRECORDMETADATA (ZENTITYID \
        COLLATE BINARY ASC, ZENTITYPK COLLATE BINARY ASC)
        """,
        """
        CREATE UNIQUE INDEX Z_NSCKRecordMetadata_UNIQUE_ckRecordName_recordZone ON ANSCKRECORDMETADATA \
        (ZCKRECORDNAME COLLATE BINARY ASC, ZRECORDZONE COLLATE BINARY ASC)
        """,
    ]
    /// The columns cdhist reads of the other tables (their full DDL is not in the spec).
    static let otherDDL: [String: String] = [
        "ANSCKRECORDZONEMETADATA":
            """
        CREATE TABLE ANSCKRECORDZONEMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
        ZDATABASE INTEGER, ZCKOWNERNAME VARCHAR, ZCKRECORDZONENAME VARCHAR, ZLASTFETCHDATE TIMESTAMP, \
        ZCURRENTCHANGETOKEN BLOB )
        """,
        "ANSCKDATABASEMETADATA":
            """
        CREATE TABLE ANSCKDATABASEMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
        ZDATABASESCOPENUM INTEGER, ZLASTFETCHDATE TIMESTAMP, ZCURRENTCHANGETOKEN BLOB )
        """,
        "ANSCKEVENT":
            """
        CREATE TABLE ANSCKEVENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCLOUDKITEVENTTYPE \
        INTEGER, ZSUCCEEDED INTEGER, ZERRORCODE INTEGER, ZSTARTEDAT TIMESTAMP, ZENDEDAT TIMESTAMP, \
        ZERRORDOMAIN VARCHAR )
        """,
    ]

    /// Adds `fixture`'s tables and rows to the store at `path` in one transaction.
    public static func write(_ fixture: MirroringFixture, to path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.inDatabase { db in
            try db.inTransaction {
                let tables: Set<String>
                switch fixture.layout {
                case .allTables: tables = Set(tableNames)
                case .only(let some): tables = some
                case .storeMetadata:
                    tables = []
                    try writeStoreMetadata(fixture, db: db)
                }
                for table in tableNames where tables.contains(table) { try create(table, fixture: fixture, db: db) }
                if tables.contains("ANSCKMETADATAENTRY") { try writeMetadataEntries(fixture, db: db) }
                if tables.contains("ANSCKRECORDMETADATA") { try writeRecords(fixture, db: db) }
                if tables.contains("ANSCKRECORDZONEMETADATA") {
                    try db.execute(
                        sql:
                            """
                            INSERT INTO ANSCKRECORDZONEMETADATA (Z_ENT, Z_OPT, ZDATABASE, ZCKOWNERNAME, \
                            ZCKRECORDZONENAME, ZLASTFETCHDATE) VALUES (17013, 1, 1, '__defaultOwner__', \
                            'com.apple.coredata.cloudkit.zone', ?)
                            """,
                        arguments: [fixture.lastFetch])
                }
                if tables.contains("ANSCKDATABASEMETADATA") {
                    try db.execute(
                        sql:
                            """
                            INSERT INTO ANSCKDATABASEMETADATA (Z_ENT, Z_OPT, ZDATABASESCOPENUM, ZLASTFETCHDATE) \
                            VALUES (17001, 1, 2, ?)
                            """,
                        arguments: [fixture.lastFetch])
                }
                if tables.contains("ANSCKEVENT") {
                    for e in fixture.events {
                        try db.execute(
                            sql:
                                """
                                INSERT INTO ANSCKEVENT (Z_ENT, Z_OPT, ZCLOUDKITEVENTTYPE, ZSUCCEEDED, ZERRORCODE, \
                                ZSTARTEDAT, ZENDEDAT, ZERRORDOMAIN) VALUES (17002, 1, ?, ?, ?, ?, ?, ?)
                                """,
                            arguments: [
                                e.type, e.succeeded ? 1 : 0, e.error?.code, e.started, e.ended, e.error?.domain,
                            ])
                    }
                }
                // The two entity numbers the spec shows in Z_PRIMARYKEY.
                for (number, name, table) in [
                    (17009, "NSCKMetadataEntry", "ANSCKMETADATAENTRY"),
                    (17012, "NSCKRecordMetadata", "ANSCKRECORDMETADATA"),
                ]
                where tables.contains(table) {
                    let max = try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(Z_PK), 0) FROM \(table)") ?? 0
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                        arguments: [number, name, max])
                }
                return .commit
            }
        }
    }

    private static func create(_ table: String, fixture: MirroringFixture, db: Database) throws {
        switch table {
        case "ANSCKMETADATAENTRY":
            try db.execute(sql: metadataEntryDDL)
        case "ANSCKRECORDMETADATA":
            let columns = recordColumns.filter { !fixture.omittedRecordColumns.contains($0.name) }
            try db.execute(
                sql: "CREATE TABLE ANSCKRECORDMETADATA ( "
                    + columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + " )")
            for index in recordIndexes where !fixture.omittedRecordColumns.contains(where: index.contains) {
                try db.execute(sql: index)
            }
        default:
            try db.execute(
                sql: otherDDL[table]
                    ?? "CREATE TABLE \(table) ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER )")
        }
    }

    /// The metadata a signed-in mirror keeps, with the exporter's token.
    private static func entries(_ fixture: MirroringFixture) -> [(
        key: String, column: String, value: DatabaseValueConvertible?
    )] {
        var rows: [(String, String, DatabaseValueConvertible?)] = [
            ("PFCloudKitMetadataFrameworkVersionKey", "ZINTEGERVALUE", 1),
            ("PFCloudKitMetadataModelVersionHashesKey", "ZTRANSFORMEDVALUE", Data(repeating: 0xA5, count: 48)),
            ("PFCloudKitMetadataNeedsMetadataMigrationKey", "ZBOOLVALUENUM", 0),
            ("NSCloudKitMirroringDelegateCheckedCKIdentityDefaultsKey", "ZBOOLVALUENUM", 1),
            (
                "NSCloudKitMirroringDelegateCKIdentityRecordNameDefaultsKey", "ZSTRINGVALUE",
                "_4d1f7c0e9a2b3c4d5e6f708192a3b4c5"
            ),
        ]
        if let token = fixture.token {
            rows.append((MirroringState.lastHistoryTokenKey, "ZTRANSFORMEDVALUE", Data(token)))
        }
        return rows
    }

    private static func writeMetadataEntries(_ fixture: MirroringFixture, db: Database) throws {
        for (key, column, value) in entries(fixture) {
            try db.execute(
                sql: "INSERT INTO ANSCKMETADATAENTRY (Z_ENT, Z_OPT, ZKEY, \(column)) VALUES (17009, 1, ?, ?)",
                arguments: [key, value])
        }
    }

    /// The first release's layout: the keys in the store's metadata dictionary.
    private static func writeStoreMetadata(_ fixture: MirroringFixture, db: Database) throws {
        guard let blob = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"),
            var plist = try PropertyList.decode(blob).dictionaryValue
        else { return }
        plist["PFCloudKitServerChangeTokenKey"] = .data(Array(repeating: 0x5A, count: 32))
        if let token = fixture.token { plist[MirroringState.lastHistoryTokenKey] = .data(token) }
        try db.execute(
            sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [Data(PropertyList.encodeBinary(.dictionary(plist)))])
    }

    /// Mirrors an existing store as if its exporter had reached transaction
    /// `position`: one record per object changed up to it (its last export is its
    /// newest change), every fifth awaiting upload, every seventh a deletion in iCloud.
    public static func mirror(_ path: String, storeUUID: String, position: Int64, lastFetch: Double? = nil) throws
        -> [MirroringFixture.Record]
    {
        let queue = try DatabaseQueue(path: path)
        let objects = try queue.read { db in
            try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT ZENTITY, ZENTITYPK, MAX(ZTRANSACTIONID) FROM ACHANGE WHERE ZTRANSACTIONID <= ? GROUP \
                    BY 1, 2 ORDER BY 1, 2
                    """,
                arguments: [position])
        }
        try queue.close()
        let records = objects.enumerated().map { i, row in
            MirroringFixture.Record(
                entityNumber: row[0], primaryKey: row[1], lastExported: row[2], needsUpload: i % 5 == 0,
                needsCloudDelete: i % 7 == 0)
        }
        try write(
            MirroringFixture(
                token: MirroringFixture.token(position, store: storeUUID), records: records, lastFetch: lastFetch),
            to: path)
        return records
    }

    /// A deterministic UUID-shaped record name.
    private static func recordName(_ n: Int) -> String {
        let hex = String(n, radix: 16, uppercase: true)
        return "C0FFEE00-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    private static func writeRecords(_ fixture: MirroringFixture, db: Database) throws {
        let present = recordColumns.map(\.name).filter { !fixture.omittedRecordColumns.contains($0) && $0 != "Z_PK" }
        for (i, r) in fixture.records.enumerated() {
            let values: [String: DatabaseValueConvertible?] = [
                "Z_ENT": 17012, "Z_OPT": 1, "ZENTITYID": r.entityNumber, "ZENTITYPK": r.primaryKey,
                "ZLASTEXPORTEDTRANSACTIONNUMBER": r.lastExported, "ZNEEDSCLOUDDELETE": r.needsCloudDelete ? 1 : 0,
                "ZNEEDSLOCALDELETE": 0, "ZNEEDSUPLOAD": r.needsUpload ? 1 : 0,
                "ZPENDINGEXPORTCHANGETYPENUMBER": r.pendingExport == nil ? nil : 1,
                "ZPENDINGEXPORTTRANSACTIONNUMBER": r.pendingExport,
                "ZENCODEDRECORDASSET": nil, "ZRECORDZONE": 1, "ZSYSTEMFIELDSASSET": nil,
                "ZCKRECORDNAME": recordName(i + 1),
            ]
            try db.execute(
                sql:
                    """
                    INSERT INTO ANSCKRECORDMETADATA (\(present.joined(separator: ", "))) VALUES \
                    (\(present.map { _ in "?" }.joined(separator: ", ")))
                    """,
                arguments: StatementArguments(present.map { values[$0] ?? nil }))
        }
    }
}
