import HistoryKit

/// The App Group history mirrored with CloudKit (the `CloudKit/` scenario and
/// its variants), and SwiftData-style JSON tokens.
public enum CloudKitFixtures {
    /// The transaction the exporter has reached in the `CloudKit/` scenario.
    public static let exportedThrough: Int64 = 28

    /// Entity numbers of the Tasks model, by name.
    static let entityNumbers: [String: Int64] = Dictionary(
        FixtureStore(model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, transactions: []).entityNumbers.map
        { ($0.name, $0.number) },
        uniquingKeysWith: { a, _ in a })

    /// The objects CloudKit mirrors by #28, with the last transaction exported for each:
    /// Task 3 and 5 changed again since, Task 10 and 14 await upload (14's export is in
    /// flight), Tag 2 awaits its deletion in iCloud.
    public static func records() -> [MirroringFixture.Record] {
        func r(
            _ entity: String, _ pk: Int64, _ last: Int64?, upload: Bool = false, delete: Bool = false,
            pending: Int64? = nil
        ) -> MirroringFixture.Record {
            MirroringFixture.Record(
                entityNumber: entityNumbers[entity] ?? 0, primaryKey: pk, lastExported: last,
                needsUpload: upload, needsCloudDelete: delete, pendingExport: pending)
        }
        let tasks: [(Int64, Int64?)] = [
            (1, 15), (2, 16), (3, 8), (4, 18), (5, 10), (6, 20), (8, 22), (9, 23), (10, 24), (11, 4), (12, 4), (13, 11),
            (14, nil),
        ]
        return [r("Project", 1, 8), r("Person", 1, 2)]
            + tasks.map {
                r("Task", $0.0, $0.1, upload: $0.0 == 10 || $0.0 == 14, pending: $0.0 == 14 ? exportedThrough : nil)
            }
            + [
                r("Photo", 1, 13), r("Photo", 3, 11), r("Document", 2, 14), r("Tag", 1, 10),
                r("Tag", 2, 4, delete: true),
            ]
    }

    /// Setup, imports and exports over the three days; the last export failed (no network).
    static func events() -> [MirroringFixture.Event] {
        func at(_ n: Int) -> Double { Scenarios.appGroupTime(n) }
        return [
            .init(type: 0, started: at(1), ended: at(1) + 2, succeeded: true),
            .init(type: 2, started: at(3), ended: at(3) + 1, succeeded: true),
            .init(type: 1, started: at(12), ended: at(12) + 3, succeeded: true),
            .init(type: 2, started: at(26), ended: at(26) + 1, succeeded: true),
            .init(type: 1, started: at(28), ended: at(28) + 2, succeeded: true),
            .init(
                type: 2, started: at(33), ended: at(33) + 30, succeeded: false,
                error: (domain: "CKErrorDomain", code: 3)),
        ]
    }

    /// The `CloudKit/` scenario's mirroring: every table, the exporter at #28.
    public static func mirroring(
        token: [UInt8]? = MirroringFixture.token(exportedThrough, store: Scenarios.appGroupUUID),
        layout: MirroringFixture.Layout = .allTables, omittedRecordColumns: Set<String> = []
    ) -> MirroringFixture {
        MirroringFixture(
            layout: layout, token: token, records: records(), omittedRecordColumns: omittedRecordColumns,
            lastFetch: Scenarios.appGroupTime(Int(exportedThrough)), events: events())
    }

    /// A JSON token as an app might save SwiftData's `DefaultHistoryToken`
    /// (its layout is not documented: a store identifier mapped to a number, inside objects of the app's choosing).
    public static func jsonToken(_ n: Int64, store: String = Scenarios.appGroupUUID) -> [UInt8] {
        Array("{\"storeTokens\":{\"\(store)\":\(n)},\"version\":1}".utf8)
    }

    /// `CloudKit/`'s other files: a JSON token file, and shared defaults with JSON tokens as data and as a string.
    public static func files() -> [String: [UInt8]] {
        [
            "swiftdata-token.json": jsonToken(31) + [0x0A],
            "swiftdata.plist": MergeStateFixtures.plist([
                "historyToken.app": .string(String(decoding: jsonToken(34), as: UTF8.self)),
                "historyToken.widget": .data(jsonToken(20)),
                // JSON that is no token: passed over (a note with --verbose).
                "filterSettings": .data(Array("{\"showCompleted\":true,\"sortKey\":\"due\",\"limit\":50}".utf8)),
            ]),
        ]
    }

    /// Variants of the mirrored store for tests (not committed): the exporter up
    /// to date, expired by a purge, with a corrupt or foreign token, without one,
    /// with only the metadata table, an older OS's columns, the first release's layout.
    public static let variants: [Scenarios.Scenario] = {
        let uuid = Scenarios.appGroupUUID
        func variant(
            _ name: String, _ summary: String, purged: ClosedRange<Int64>? = nil, _ mirroring: MirroringFixture
        ) -> Scenarios.Scenario {
            Scenarios.Scenario(
                name: "CloudKit-\(name)", storeFile: "Tasks.sqlite", summary: summary,
                store: FixtureStore(
                    model: Scenarios.tasksModel, storeUUID: uuid, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0), transactions: Scenarios.appGroupHistory(),
                    purgedTransactions: purged),
                writesXcdatamodel: false, mirroring: mirroring)
        }
        return [
            variant(
                "UpToDate", "the exporter has reached the last transaction (#34)",
                mirroring(token: MirroringFixture.token(34, store: uuid))),
            variant("Expired", "history purged through #30, past the exporter's #28", purged: 1...30, mirroring()),
            variant(
                "Corrupt", "the exporter's token is not an archive", mirroring(token: Array("not an archive".utf8))),
            variant(
                "Foreign", "the exporter's token names another store",
                mirroring(token: MirroringFixture.token(28, store: MergeStateFixtures.foreignUUID))),
            variant("Missing", "mirroring tables, but no export position yet", mirroring(token: nil)),
            variant(
                "MetadataOnly", "only ANSCKMETADATAENTRY (no record, zone or event table)",
                mirroring(layout: .only(["ANSCKMETADATAENTRY"]))),
            variant(
                "OlderColumns", "ANSCKRECORDMETADATA without ZNEEDSCLOUDDELETE and ZPENDINGEXPORTTRANSACTIONNUMBER",
                mirroring(omittedRecordColumns: ["ZNEEDSCLOUDDELETE", "ZPENDINGEXPORTTRANSACTIONNUMBER"])),
            variant(
                "StoreMetadata", "no tables: the token in Z_METADATA, as the first release kept it",
                mirroring(layout: .storeMetadata)),
        ]
    }()
}
