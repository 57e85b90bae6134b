import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// CloudKit mirroring's state in the store, on every fixture variant, and its exporter as an actor.
@Suite struct MirroringTests {
    let now = Scenarios.appGroupTime(34) + 3600

    /// Writes the scenario named `name` (`CloudKit` or a `CloudKit-…` variant) and opens its store.
    static func store(_ name: String, in dir: TemporaryDirectory) throws -> HistoryStore {
        let scenario = try #require((Scenarios.all + CloudKitFixtures.variants).first { $0.name == name })
        try FixtureFiles.write(scenario, into: dir.path)
        return try HistoryStore.open(dir.path + "/\(name)/Tasks.sqlite")
    }

    func exporter(_ store: HistoryStore, records: [MergeRecord] = []) throws -> (MergeStateReport, ActorReport) {
        let report = try MergeStateAnalyzer(
            store: store, declared: [], batch: [], records: records, mirroring: try MirroringState.read(in: store),
            now: now
        ).report()
        return (report, try #require(report.exporter))
    }

    @Test func everyTableOfTheMirroredFixtureIsRead() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store("CloudKit", in: dir)
        let state = try #require(try MirroringState.read(in: store, recentEvents: 3))
        #expect(state.tables == MirroringWriter.tableNames)
        #expect(state.metadataSource == "ANSCKMETADATAENTRY")
        #expect(state.exportPosition?.kind == .cloudKit)
        #expect(
            state.exportPosition?.position
                == .token(HistoryToken(storeUUID: Scenarios.appGroupUUID, transactionNumber: 28)))
        #expect(state.exportPosition?.source == "ANSCKMETADATAENTRY [NSCloudKitMirroringDelegateLastHistoryTokenKey]")
        #expect(state.frameworkVersion == 1)
        #expect(state.identityChecked == true)
        #expect(state.needsMetadataMigration == false)
        #expect(
            state.entry("NSCloudKitMirroringDelegateCKIdentityRecordNameDefaultsKey")?.value
                == .string("_4d1f7c0e9a2b3c4d5e6f708192a3b4c5"))
        let records = try #require(state.records)
        #expect(records.mirrored == 20)
        #expect(records.needsUpload == 2)
        #expect(records.needsCloudDelete == 1)
        #expect(records.needsLocalDelete == 0)
        #expect(records.exportInFlight == 1)
        #expect(records.lastExportedTransaction == 24)
        #expect(records.byEntity.map(\.entityName) == ["Document", "Photo", "Person", "Project", "Tag", "Task"])
        #expect(records.byEntity.first { $0.entityName == "Task" }?.mirrored == 13)
        #expect(
            state.zones == [
                MirroredZone(
                    name: "com.apple.coredata.cloudkit.zone", owner: "__defaultOwner__",
                    lastFetch: Scenarios.appGroupTime(28))
            ])
        #expect(state.databases?.first?.scopeName == "private")
        #expect(state.eventCount == 6)
        // Newest first, the failed export on top.
        #expect(state.recentEvents?.map(\.typeName) == ["export", "import", "export"])
        #expect(state.recentEvents?.first?.succeeded == false)
        #expect(state.recentEvents?.first?.errorDomain == "CKErrorDomain")
        #expect(state.recentEvents?.first?.errorCode == 3)
        #expect(state.problems.isEmpty)
    }

    @Test func unmirroredStoresHaveNoState() throws {
        let dir = try TemporaryDirectory()
        let plain = try LibraryModel.write(LibraryModel.fixture(), in: dir)
        #expect(try MirroringState.read(in: HistoryStore.open(plain)) == nil)
        #expect(try ExportBacklog.read(in: HistoryStore.open(plain), limit: 5) == nil)
        if RealStores.available {
            #expect(try MirroringState.read(in: HistoryStore.open(RealStores.photos)) == nil)
            #expect(try MirroringState.read(in: HistoryStore.open(RealStores.swiftData)) == nil)
        }
    }

    @Test func theExporterIsAnActorWithItsOwnAuthors() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store("CloudKit", in: dir)
        let (report, e) = try exporter(store)
        #expect(e.name == MirroringState.exportActorName)
        #expect(e.status == .behind)
        #expect(e.tokenNumber == 28)
        // After #28: app #29, #30, #32, widget #31, share #34 to export; CloudKit's own #33 not.
        #expect(e.pending.count == 5)
        #expect(e.pending.ownCount == 1)
        #expect(e.pending.oldestNumber == 29)
        #expect(e.mirroredRecordCount == 20)
        // Its newest export failed (CKErrorDomain 3) and none succeeded after it: stuck, and named.
        #expect(
            e.explanation
                == """
                has 5 transactions to export (and 1 written by CloudKit itself, which it does not export); its \
                last export 
                """
                    + """
                    (2025-03-05 09:41:00Z) failed with CKErrorDomain 3 (networkUnavailable: the device had no \
                    network) and none succeeded after it
                    """
        )
        #expect(e.advice.description.hasPrefix("fix what the error names"))
        // The exporter holds back no app cleaner and is in no cleaner's author filter.
        #expect(
            report.cleaners.map(\.cutoff).allSatisfy {
                $0.heldBackBy != e.name && !($0.authorFilter ?? []).contains(e.name)
            })
    }

    @Test func everyVariantHasItsStatus() throws {
        let dir = try TemporaryDirectory()
        let expected: [(String, ActorStatus, Int)] = [
            ("CloudKit-UpToDate", .upToDate, 0), ("CloudKit-Expired", .expired, 3),
            ("CloudKit-Corrupt", .corruptToken, 0),
            ("CloudKit-Foreign", .foreignToken, 0), ("CloudKit-Missing", .neverMerged, 27),
            ("CloudKit-MetadataOnly", .behind, 5),
            ("CloudKit-OlderColumns", .behind, 5), ("CloudKit-StoreMetadata", .behind, 5),
        ]
        for (name, status, pending) in expected {
            let store = try Self.store(name, in: dir)
            let (_, e) = try exporter(store)
            #expect(e.status == status, "\(name)")
            #expect(e.pending.count == pending, "\(name)")
        }
        let expired = try exporter(try HistoryStore.open(dir.path + "/CloudKit-Expired/Tasks.sqlite")).1
        #expect(
            expired.explanation.contains(
                "its export position (transaction #28) was purged (the oldest remaining is #31)"))
        #expect(
            expired.explanation.contains(
                "resets (reason: history expired) and re-uploads every record (20 mirrored records)"))
        let corrupt = try #require(
            try MirroringState.read(in: HistoryStore.open(dir.path + "/CloudKit-Corrupt/Tasks.sqlite"))?.exportPosition)
        guard case .unreadable(let why) = corrupt.position else {
            Issue.record("expected unreadable")
            return
        }
        #expect(why.contains("corrupt token archive"))
    }

    @Test func whatAnOSVersionLacksIsSaidNotGuessed() throws {
        let dir = try TemporaryDirectory()
        let older = try #require(try MirroringState.read(in: Self.store("CloudKit-OlderColumns", in: dir)))
        #expect(older.records?.needsCloudDelete == nil)
        #expect(older.records?.exportInFlight == nil)
        #expect(older.records?.needsUpload == 2)
        #expect(
            older.problems == [
                "ANSCKRECORDMETADATA has no ZNEEDSCLOUDDELETE column (another OS version): not counted",
                "ANSCKRECORDMETADATA has no ZPENDINGEXPORTTRANSACTIONNUMBER column (another OS version): not counted",
            ])
        let metadataOnly = try #require(try MirroringState.read(in: Self.store("CloudKit-MetadataOnly", in: dir)))
        #expect(metadataOnly.tables == ["ANSCKMETADATAENTRY"])
        #expect(metadataOnly.records == nil && metadataOnly.zones == nil && metadataOnly.recentEvents == nil)
        let legacy = try #require(try MirroringState.read(in: Self.store("CloudKit-StoreMetadata", in: dir)))
        #expect(legacy.tables.isEmpty)
        #expect(legacy.metadataSource == "Z_METADATA")
        #expect(legacy.exportPosition?.source == "Z_METADATA [NSCloudKitMirroringDelegateLastHistoryTokenKey]")
        #expect(legacy.entry("PFCloudKitServerChangeTokenKey")?.value == .data(byteCount: 32))
        let missing = try #require(try MirroringState.read(in: Self.store("CloudKit-Missing", in: dir)))
        #expect(missing.exportPosition == nil)
    }

    @Test func damagedMirroringTablesAreReportedNotTrapped() throws {
        let dir = try TemporaryDirectory()
        _ = try Self.store("CloudKit", in: dir)
        let path = dir.path + "/CloudKit/Tasks.sqlite"
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE ANSCKRECORDMETADATA SET ZNEEDSUPLOAD = 'yes' WHERE Z_PK = 1")
            try db.execute(sql: "UPDATE ANSCKRECORDMETADATA SET ZENTITYID = X'00' WHERE Z_PK = 2")
            try db.execute(
                sql: "UPDATE ANSCKMETADATAENTRY SET ZTRANSFORMEDVALUE = NULL WHERE ZKEY = ?",
                arguments: [MirroringState.lastHistoryTokenKey])
            try db.execute(
                sql:
                    """
                    UPDATE ANSCKMETADATAENTRY SET ZINTEGERVALUE = 'one' WHERE ZKEY = \
                    'PFCloudKitMetadataFrameworkVersionKey'
                    """
            )
            try db.execute(sql: "INSERT INTO ANSCKMETADATAENTRY (ZKEY) VALUES (X'FF')")
            try db.execute(sql: "UPDATE ANSCKEVENT SET ZSTARTEDAT = 'yesterday' WHERE Z_PK = 6")
        }
        try queue.close()
        let state = try #require(try MirroringState.read(in: HistoryStore.open(path)))
        #expect(state.exportPosition == nil)
        #expect(state.frameworkVersion == nil)
        #expect(state.records?.mirrored == 20)
        #expect(state.records?.byEntity.last?.entityNumber == nil)
        #expect(state.problems.contains("ANSCKRECORDMETADATA: 1 value of ZNEEDSUPLOAD is not an integer; not counted"))
        #expect(
            state.problems.contains(
                """
                ANSCKMETADATAENTRY [NSCloudKitMirroringDelegateLastHistoryTokenKey] holds no value: CloudKit has \
                no export position
                """
            ))
        #expect(
            state.problems.contains {
                $0.hasPrefix(
                    "ANSCKMETADATAENTRY [PFCloudKitMetadataFrameworkVersionKey]: ZINTEGERVALUE holds TEXT \"one\"")
            })
        #expect(
            state.problems.contains(
                "ANSCKMETADATAENTRY has a row whose ZKEY holds BLOB of 1 bytes (ff), not text; ignored"))
        #expect(state.problems.contains { $0.hasPrefix("ANSCKEVENT: 1 of the newest events") })
    }

    /// Without its key/value table the export position is unknown: not "never exported".
    @Test func aMissingMetadataTableIsAnUnknownPosition() throws {
        let dir = try TemporaryDirectory()
        _ = try Self.store("CloudKit", in: dir)
        let path = dir.path + "/CloudKit/Tasks.sqlite"
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "DROP TABLE ANSCKMETADATAENTRY") }
        try queue.close()
        let store = try HistoryStore.open(path)
        let (_, e) = try exporter(store)
        #expect(e.status == .corruptToken)
        #expect(e.explanation == "its export position cannot be read: the store has no ANSCKMETADATAENTRY table")
        #expect(e.pending.count == 0)
    }

    @Test func purgesPastTheExportPositionBreakTheMirror() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store("CloudKit", in: dir)
        let (_, e) = try exporter(store)
        let past = try PurgePreview.make(HistoryQuery(before: .transaction(29)), in: store, actors: [e], readers: [])
        #expect(past.consequences.count == 1)
        #expect(past.consequences.first?.kind == .cloudKit)
        #expect(past.consequences.first?.status == .expired)
        #expect(
            past.consequences.first?.message
                == """
                CloudKit's export position (transaction #28) would be purged: on its next export the mirror finds \
                its token expired, resets (reason: history expired) and re-uploads every record (20 mirrored \
                records)
                """
        )
        // Up to the position, nothing breaks (CloudKit's own transactions are only a warning).
        let before = try PurgePreview.make(HistoryQuery(before: .transaction(28)), in: store, actors: [e], readers: [])
        #expect(before.consequences.isEmpty)
        #expect(before.cloudKitTransactions == 5)
        // Deleting what it has not exported yet, but not its position, loses those changes.
        let unexported = try PurgePreview.make(
            HistoryQuery(before: .transaction(34), authors: [.value("app")]), in: store, actors: [e], readers: [])
        #expect(unexported.consequences.map(\.status) == [.missedChanges])
        #expect(
            unexported.consequences.first?.message
                == "the purge deletes 3 transactions CloudKit has not exported yet: their changes never reach iCloud")
        // Deleting only CloudKit's own transactions after the position is no loss to the exporter.
        let own = try PurgePreview.make(
            HistoryQuery(after: .transaction(28), authors: [.value("NSCloudKitMirroringDelegate.export")]), in: store,
            actors: [e], readers: [])
        #expect(own.consequences.isEmpty)
    }

    @Test func cleanersThatDeleteTheExportPositionExpireIt() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store("CloudKit", in: dir)
        // A week after the last transaction, Apple's sample deletes everything; the store's actors keep dates of their own.
        let report = try MergeStateAnalyzer(
            store: store, declared: [], batch: [],
            records: [
                MergeRecord(
                    actor: "app", position: .date(Scenarios.appGroupTime(34), wholeSeconds: false), source: "test",
                    keyFormat: nil),
                MergeRecord(
                    actor: "widget", position: .date(Scenarios.appGroupTime(20), wholeSeconds: false), source: "test",
                    keyFormat: nil),
            ], mirroring: try MirroringState.read(in: store), now: Scenarios.appGroupTime(34) + 8 * 86400
        ).report()
        let breaks = Dictionary(uniqueKeysWithValues: report.cleaners.map { ($0.strategy, $0.breaks) })
        #expect(breaks[.apple]?.map(\.actor) == ["widget", MirroringState.exportActorName])
        #expect(breaks[.apple]?.map(\.status) == [.missedChanges, .expired])
        // PersistentHistoryTrackingKit 2 stops at widget's #20, before the position, and deletes only the app's actors' transactions.
        #expect(breaks[.phtk2]?.isEmpty == true)
        // A cut-off that deletes what CloudKit has not exported (app's #29–#32 before app's #33) makes it miss them.
        let later = try MergeStateAnalyzer(
            store: store, declared: [], batch: [],
            records: [
                MergeRecord(
                    actor: "app",
                    position: .token(HistoryToken(storeUUID: Scenarios.appGroupUUID, transactionNumber: 33)),
                    source: "test", keyFormat: nil)
            ], mirroring: try MirroringState.read(in: store), now: Scenarios.appGroupTime(34)
        ).report()
        let phtk = try #require(later.cleaner(.phtk100))
        #expect(phtk.breaks.map(\.actor) == [MirroringState.exportActorName])
        #expect(phtk.breaks.first?.status == .missedChanges)
    }

    @Test func theExportBacklogListsObjectsChangedSinceTheirExport() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store("CloudKit", in: dir)
        let backlog = try #require(try ExportBacklog.read(in: store, limit: 3))
        #expect(backlog.count == 4)
        #expect(
            backlog.objects.map { "\($0.entityName ?? "?")/p\($0.primaryKey)" } == ["Task/p14", "Tag/p2", "Task/p5"])
        #expect(backlog.objects.first?.lastExported == nil)
        #expect(backlog.objects.first?.lastChanged == 27)
        let task = try #require(store.catalog.entity(named: "Task")?.number)
        #expect(backlog.byEntity[task] == 3)
        // Task 1's newest change is #15, which CloudKit exported; #5 by CloudKit's exporter itself does not count.
        #expect(!backlog.objects.contains { $0.entityName == "Task" && $0.primaryKey == 1 })
    }
}
