import GRDB
import HistoryReading

extension MirroringState {
    /// CloudKit mirroring's state in `store`; nil when the store is not
    /// mirrored (no `ANSCK…` table and no mirroring key in its metadata).
    /// Reads only: missing tables and columns, values of another type and
    /// undecodable archives become ``MirroringState/problems``.
    public static func read(in store: HistoryStore, recentEvents: Int = 10) throws -> MirroringState? {
        try store.read { db in
            var reader = MirroringReader(store: store, db: db)
            return try reader.read(recentEvents: max(0, recentEvents))
        }
    }
}

/// Reads the mirroring tables of one store, tolerating every variant.
struct MirroringReader {
    let store: HistoryStore
    let db: Database
    private var problems: [String] = []

    init(store: HistoryStore, db: Database) {
        self.store = store
        self.db = db
    }

    /// The value column each known metadata key keeps its value in.
    private static let valueColumns: [String: String] = [
        MirroringState.lastHistoryTokenKey: "ZTRANSFORMEDVALUE",
        "PFCloudKitMetadataClientVersionHashesKey": "ZTRANSFORMEDVALUE",
        "PFCloudKitMetadataModelVersionHashesKey": "ZTRANSFORMEDVALUE",
        "PFCloudKitMetadataFrameworkVersionKey": "ZINTEGERVALUE",
        "PFCloudKitMetadataNeedsMetadataMigrationKey": "ZBOOLVALUENUM",
        "PFCloudKitMetadataModelMigratorMigrationBeganCommitKey": "ZBOOLVALUENUM",
        "NSCloudKitMirroringDelegateCheckedCKIdentityDefaultsKey": "ZBOOLVALUENUM",
        "NSCloudKitMirroringDelegateCKIdentityRecordNameDefaultsKey": "ZSTRINGVALUE",
    ]
    private static let entryValueColumns = [
        "ZBOOLVALUENUM", "ZINTEGERVALUE", "ZDATEVALUE", "ZSTRINGVALUE", "ZTRANSFORMEDVALUE",
    ]

    mutating func read(recentEvents: Int) throws -> MirroringState? {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            .filter { $0.uppercased().hasPrefix("ANSCK") }.sorted()
        let legacyKeys = store.metadata.plist.keys.filter(Self.isMirroringKey).sorted()
        guard !tables.isEmpty || !legacyKeys.isEmpty else { return nil }
        let present = Set(tables.map { $0.uppercased() })

        var metadata: [MirroringMetadataEntry] = []
        var tokenSource: (source: String, bytes: [UInt8]?)?
        var metadataSource: String?
        // Without its key/value table (or its key column) the position is not missing but unknown.
        var metadataProblem: String?
        if present.contains("ANSCKMETADATAENTRY") {
            metadataSource = "ANSCKMETADATAENTRY"
            if try columns("ANSCKMETADATAENTRY").contains("ZKEY") {
                (metadata, tokenSource) = try readMetadataEntries()
            } else {
                metadataProblem = "ANSCKMETADATAENTRY has no ZKEY column"
            }
        } else if !tables.isEmpty {
            metadataProblem = "the store has no ANSCKMETADATAENTRY table"
        }
        if let metadataProblem {
            problems.append(metadataProblem + ": CloudKit's export position and settings are unknown")
        }
        // The first release kept the same keys in the store's metadata.
        var legacyToken: (source: String, bytes: [UInt8]?)?
        var legacyKind = ""
        for key in legacyKeys {
            guard let value = store.metadata.plist[key] else { continue }
            if key == MirroringState.lastHistoryTokenKey {
                legacyToken = ("Z_METADATA [\(key)]", value.dataValue)
                legacyKind = value.kindName
            }
            if !metadata.contains(where: { $0.key == key }) {
                metadata.append(MirroringMetadataEntry(key: key, value: Self.value(of: value)))
            }
        }
        if metadataSource == nil, !legacyKeys.isEmpty { metadataSource = "Z_METADATA" }
        if let table = tokenSource, let legacy = legacyToken {
            problems.append(
                """
                \(legacy.source) also holds a token, from before the mirroring tables; the one in \(table.source) \
                is used
                """
            )
        }

        var position: MergeRecord?
        if let token = tokenSource ?? legacyToken {
            if let bytes = token.bytes {
                let decoded: MergePosition
                do {
                    decoded = .token(try HistoryTokenDecoder.decode(archive: bytes, source: token.source))
                } catch {
                    decoded = .unreadable("\(error)")
                }
                position = MergeRecord(
                    actor: MirroringState.exportActorName, position: decoded, source: token.source, keyFormat: nil,
                    kind: .cloudKit)
            } else if tokenSource != nil {
                problems.append("\(token.source) holds no value: CloudKit has no export position")
            } else {
                position = MergeRecord(
                    actor: MirroringState.exportActorName,
                    position: .unreadable("\(token.source) holds \(legacyKind), not an archived token"),
                    source: token.source, keyFormat: nil, kind: .cloudKit)
            }
        } else if let metadataProblem {
            position = MergeRecord(
                actor: MirroringState.exportActorName, position: .unreadable(metadataProblem),
                source: "ANSCKMETADATAENTRY", keyFormat: nil, kind: .cloudKit)
        }

        return MirroringState(
            tables: tables, metadataSource: metadataSource, exportPosition: position,
            metadata: metadata.sorted { $0.key < $1.key },
            records: present.contains("ANSCKRECORDMETADATA") ? try readRecords() : nil,
            zones: present.contains("ANSCKRECORDZONEMETADATA") ? try readZones() : nil,
            databases: present.contains("ANSCKDATABASEMETADATA") ? try readDatabases() : nil,
            recentEvents: present.contains("ANSCKEVENT") ? try readEvents(limit: recentEvents) : nil,
            eventCount: present.contains("ANSCKEVENT")
                ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ANSCKEVENT") : nil,
            problems: problems)
    }

    static func isMirroringKey(_ key: String) -> Bool {
        key.hasPrefix(AuthorFamily.cloudKitPrefix) || key.hasPrefix("PFCloudKit")
    }

    private func columns(_ table: String) throws -> Set<String> {
        Set(try db.columns(in: table).map { $0.name.uppercased() })
    }

    /// `name` when `table` has it, else `NULL`.
    private func column(_ name: String, in columns: Set<String>) -> String { columns.contains(name) ? name : "NULL" }

    private mutating func readMetadataEntries() throws -> ([MirroringMetadataEntry], (source: String, bytes: [UInt8]?)?)
    {
        let table = "ANSCKMETADATAENTRY"
        let present = try columns(table)
        let order = present.contains("Z_PK") ? "Z_PK" : "rowid"
        var entries: [String: MirroringMetadataEntry] = [:]
        var tokens: [[UInt8]?] = []
        try db.forEachRow(
            """
            SELECT ZKEY, \(Self.entryValueColumns.map { column($0, in: present) }.joined(separator: ", ")) FROM \
            \(table) ORDER BY \(order)
            """
        ) { row in
            var found: String?
            guard let key = row.text(0, problem: &found) else {
                problems.append("\(table) has a row whose ZKEY holds \(found ?? "NULL"), not text; ignored")
                return
            }
            let wanted = Self.valueColumns[key]
            if let wanted, !present.contains(wanted) {
                problems.append("\(table) has no \(wanted) column: the value of \(key) is unknown")
            }
            let candidates = Self.entryValueColumns.indices.filter {
                wanted == nil || Self.entryValueColumns[$0] == wanted
            }
            var value = MirroringMetadataValue.none
            for i in candidates where !row.isNull(Int32(i + 1)) {
                value = readValue(row, column: Int32(i + 1), name: Self.entryValueColumns[i], key: key)
                break
            }
            if key == MirroringState.lastHistoryTokenKey {
                tokens.append(row.optionalBytes(5))  // NULL when the column is missing
            }
            entries[key] = MirroringMetadataEntry(key: key, value: value)
        }
        let source = "\(table) [\(MirroringState.lastHistoryTokenKey)]"
        if tokens.count > 1 {
            problems.append(
                "\(table) holds \(tokens.count) rows for \(MirroringState.lastHistoryTokenKey); the last one is used")
        }
        return (Array(entries.values), tokens.last.map { (source, $0) })
    }

    /// The value of a metadata column, by the kind of value it holds.
    private mutating func readValue(_ row: RawCursor, column: Int32, name: String, key: String)
        -> MirroringMetadataValue
    {
        switch (name, row.storageClass(column)) {
        case ("ZBOOLVALUENUM", .integer): return .bool(row.int64(column) != 0)
        case ("ZINTEGERVALUE", .integer): return .integer(row.int64(column))
        case ("ZDATEVALUE", .integer), ("ZDATEVALUE", .real): return .date(row.double(column))
        case ("ZSTRINGVALUE", .text): return .string(row.optionalText(column) ?? "")
        case ("ZTRANSFORMEDVALUE", .blob): return .data(byteCount: row.optionalBytes(column)?.count ?? 0)
        default:
            problems.append(
                "ANSCKMETADATAENTRY [\(key)]: \(name) holds \(row.describe(column)), not what Core Data writes there")
            return .none
        }
    }

    private mutating func readRecords() throws -> MirroredRecords {
        let table = "ANSCKRECORDMETADATA"
        let present = try columns(table)
        let flags = ["ZNEEDSUPLOAD", "ZNEEDSCLOUDDELETE", "ZNEEDSLOCALDELETE"]
        for name in flags + ["ZPENDINGEXPORTTRANSACTIONNUMBER", "ZLASTEXPORTEDTRANSACTIONNUMBER", "ZENTITYID"]
        where !present.contains(name) {
            problems.append(
                "\(table) has no \(name) column (another OS version): "
                    + (name == "ZENTITYID" ? "records are not counted per entity" : "not counted"))
        }
        func set(_ name: String) -> String {
            present.contains(name) ? "SUM(typeof(\(name)) = 'integer' AND \(name) <> 0)" : "NULL"
        }
        func misread(_ name: String) -> String {
            present.contains(name) ? "SUM(typeof(\(name)) NOT IN ('integer', 'null'))" : "0"
        }
        let entity =
            present.contains("ZENTITYID") ? "CASE WHEN typeof(ZENTITYID) = 'integer' THEN ZENTITYID END" : "NULL"
        let inFlight =
            present.contains("ZPENDINGEXPORTTRANSACTIONNUMBER")
            ? "SUM(ZPENDINGEXPORTTRANSACTIONNUMBER IS NOT NULL)" : "NULL"
        let last =
            present.contains("ZLASTEXPORTEDTRANSACTIONNUMBER")
            ? """
            MAX(CASE WHEN typeof(ZLASTEXPORTEDTRANSACTIONNUMBER) = 'integer' THEN ZLASTEXPORTEDTRANSACTIONNUMBER \
            END)
            """
            : "NULL"
        var records = MirroredRecords(
            mirrored: 0, needsUpload: present.contains("ZNEEDSUPLOAD") ? 0 : nil,
            needsCloudDelete: present.contains("ZNEEDSCLOUDDELETE") ? 0 : nil,
            needsLocalDelete: present.contains("ZNEEDSLOCALDELETE") ? 0 : nil,
            exportInFlight: present.contains("ZPENDINGEXPORTTRANSACTIONNUMBER") ? 0 : nil,
            lastExportedTransaction: nil, byEntity: [])
        var misreadCounts = Array(repeating: 0, count: flags.count)
        try db.forEachRow(
            """
            SELECT \(entity) AS entity, COUNT(*), \(flags.map(set).joined(separator: ", ")), \(inFlight), \(last),
                   \(flags.map(misread).joined(separator: ", "))
            FROM \(table) GROUP BY entity ORDER BY entity
            """
        ) { row in
            func optional(_ c: Int32) -> Int? { row.isNull(c) ? nil : Int(row.int64(c)) }
            let counts = MirroredRecords.EntityCounts(
                entityNumber: row.optionalInt64(0),
                entityName: row.optionalInt64(0).flatMap { store.catalog.entity(number: $0)?.name },
                mirrored: Int(row.int64(1)), needsUpload: optional(2), needsCloudDelete: optional(3))
            records.byEntity.append(counts)
            records.mirrored += counts.mirrored
            records.needsUpload = records.needsUpload.map { $0 + (counts.needsUpload ?? 0) }
            records.needsCloudDelete = records.needsCloudDelete.map { $0 + (counts.needsCloudDelete ?? 0) }
            records.needsLocalDelete = records.needsLocalDelete.map { $0 + (optional(4) ?? 0) }
            records.exportInFlight = records.exportInFlight.map { $0 + (optional(5) ?? 0) }
            if let n = row.optionalInt64(6) {
                records.lastExportedTransaction = max(records.lastExportedTransaction ?? n, n)
            }
            for i in flags.indices { misreadCounts[i] += Int(row.int64(Int32(7 + i))) }
        }
        for (name, n) in zip(flags, misreadCounts) where n > 0 {
            problems.append(
                """
                \(table): \(n) value\(n == 1 ? "" : "s") of \(name) \(n == 1 ? "is" : "are") not an integer; not \
                counted
                """
            )
        }
        // Rows whose entity is not an integer come first (NULL sorts first); list them last.
        if let first = records.byEntity.first, first.entityNumber == nil, records.byEntity.count > 1 {
            records.byEntity.append(records.byEntity.removeFirst())
        }
        return records
    }

    private mutating func readZones() throws -> [MirroredZone] {
        let table = "ANSCKRECORDZONEMETADATA"
        let present = try columns(table)
        var zones: [MirroredZone] = []
        try db.forEachRow(
            """
            SELECT \(column("ZCKRECORDZONENAME", in: present)), \(column("ZCKOWNERNAME", in: present)), \
            \(column("ZLASTFETCHDATE", in: present)) FROM \(table) ORDER BY rowid LIMIT 1000
            """
        ) { row in
            var found: String?
            let name = row.text(0, problem: &found)
            let owner = row.text(1, problem: &found)
            let fetched = row.number(2, problem: &found)
            if let found {
                problems.append("\(table) holds \(found) where Core Data writes a name or a date; read as null")
            }
            zones.append(MirroredZone(name: name, owner: owner, lastFetch: fetched))
        }
        return zones
    }

    private mutating func readDatabases() throws -> [MirroredDatabase] {
        let table = "ANSCKDATABASEMETADATA"
        let present = try columns(table)
        var databases: [MirroredDatabase] = []
        try db.forEachRow(
            """
            SELECT \(column("ZDATABASESCOPENUM", in: present)), \(column("ZLASTFETCHDATE", in: present)) FROM \
            \(table) ORDER BY rowid LIMIT 100
            """
        ) { row in
            var found: String?
            let scope = row.integer(0, problem: &found)
            let fetched = row.number(1, problem: &found)
            if let found {
                problems.append("\(table) holds \(found) where Core Data writes a scope or a date; read as null")
            }
            databases.append(MirroredDatabase(scope: scope, lastFetch: fetched))
        }
        return databases
    }

    private mutating func readEvents(limit: Int) throws -> [MirroringEvent] {
        let table = "ANSCKEVENT"
        let present = try columns(table)
        let order = present.contains("ZSTARTEDAT") ? "ZSTARTEDAT DESC, rowid DESC" : "rowid DESC"
        let names = ["ZCLOUDKITEVENTTYPE", "ZSTARTEDAT", "ZENDEDAT", "ZSUCCEEDED", "ZERRORDOMAIN", "ZERRORCODE"]
        var events: [MirroringEvent] = []
        var misread = 0
        try db.forEachRow(
            """
            SELECT \(names.map { column($0, in: present) }.joined(separator: ", ")) FROM \(table) ORDER BY \
            \(order) LIMIT \(limit)
            """
        ) { row in
            var found: String?
            let event = MirroringEvent(
                type: row.integer(0, problem: &found), started: row.number(1, problem: &found),
                ended: row.number(2, problem: &found), succeeded: row.integer(3, problem: &found).map { $0 != 0 },
                errorDomain: row.text(4, problem: &found), errorCode: row.integer(5, problem: &found))
            if found != nil { misread += 1 }
            events.append(event)
        }
        if misread > 0 {
            problems.append(
                """
                \(table): \(misread) of the newest events hold values of another type than Core Data writes; read \
                as null
                """
            )
        }
        return events
    }

    private static func value(of plist: PlistValue) -> MirroringMetadataValue {
        switch plist {
        case .bool(let b): return .bool(b)
        case .integer(let n): return .integer(n)
        case .real(let d): return Int64(exactly: d).map { .integer($0) } ?? .none
        case .date(let d): return .date(d)
        case .string(let s): return .string(s)
        case .data(let bytes): return .data(byteCount: bytes.count)
        default: return .none
        }
    }
}
