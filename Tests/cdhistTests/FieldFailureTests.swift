import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// The rules for failures real apps report, on the fixture built to show each (`Hazards/`),
/// silent where the store does not show them; Spotlight as a reader no file shows; SwiftData
/// tokens kept per store identifier.
@Suite(.serialized) struct FieldFailureTests {
    let hazards = Repository.fixtures + "/Hazards"
    var store: String { hazards + "/Clipboard.sqlite" }
    let appGroup = Repository.fixtures + "/AppGroup/Tasks.sqlite"
    static let newRules = ["cascade-orphans", "mass-delete", "two-mirrors", "dormant-mirror", "spotlight-reader"]

    /// The findings of `rule` on `args`, as JSON.
    private func findings(_ rule: String, _ args: [String]) throws -> [[String: Any]] {
        let r = try CLI.run(["check"] + args + ["--rule", rule, "--fail-on", "info", "--format", "json"])
        #expect(r.status != 2, "\(rule): \(r.stderr)")
        return (try r.json()["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == rule }
    }

    private func data(_ finding: [String: Any]?) -> [String: Any] { finding?["data"] as? [String: Any] ?? [:] }

    @Test func cascadeOrphansTellDanglingFromDetached() throws {
        let found = try findings("cascade-orphans", [store])
        #expect(found.count == 1)
        let d = data(found.first)
        #expect(d["childEntity"] as? String == "Content" && d["childRows"] as? Int == 33 && d["rows"] as? Int == 13)
        #expect(d["dangling"] as? Int == 10 && d["detached"] as? Int == 3)
        #expect(d["detachedSample"] as? [String] == ["Content/p61", "Content/p62", "Content/p63"])
        let owner = (d["owners"] as? [[String: Any]])?.first ?? [:]
        #expect(
            owner["parentEntity"] as? String == "Item" && owner["relationship"] as? String == "contents"
                && owner["inverse"] as? String == "item")
        #expect(owner["danglingSample"] as? [String] == ["Content/p31", "Content/p32", "Content/p33"])
        // Items 31–40 went in the cleanup's fourth transaction.
        #expect(
            owner["parentDeletes"] as? Int == 10 && owner["firstParentDeleteTransaction"] as? Int == 14
                && owner["lastParentDeleteTransaction"] as? Int == 14)
        let message = found.first?["message"] as? String ?? ""
        #expect(message.contains("13 of its 33 rows are left without their parent"), "\(message)")
        #expect(message.contains("history deleted 10 of those parents in #14 (2025-03-04 09:00:45Z)"), "\(message)")
        try #expect(findings("cascade-orphans", [appGroup]).isEmpty)
        try #expect(findings("cascade-orphans", [Repository.fixtures + "/Later/Tasks.sqlite"]).isEmpty)
    }

    @Test func massDeleteNamesWhoWhenAndHowMany() throws {
        let found = try findings("mass-delete", [store])
        #expect(found.count == 1)
        let d = data(found.first)
        #expect(d["author"] as? String == "cleanup" && d["entity"] as? String == "Item")
        #expect(d["deleted"] as? Int == 40 && d["objectsBefore"] as? Int == 60 && d["transactions"] as? Int == 4)
        #expect(d["firstTransaction"] as? Int == 11 && d["lastTransaction"] as? Int == 14)
        #expect(
            (found.first?["message"] as? String ?? "").contains(
                """
                cleanup (com.example.clipboard, Clipboard) deleted 40 of 60 Item objects (66%) in 4 transactions \
                #11–#14 from 2025-03-04 09:00:00Z within 45 seconds
                """
            ))
        // The thresholds decide: 61 objects at least, or a window shorter than the 15 seconds
        // between the cleanup's transactions.
        let dir = try TemporaryDirectory()
        try #"{"thresholds": {"massDeleteMinObjects": 61}}"#.write(
            toFile: dir.file("many.json"), atomically: true, encoding: .utf8)
        try #expect(findings("mass-delete", [store, "--config", dir.file("many.json")]).isEmpty)
        try #"{"thresholds": {"massDeleteWindowSeconds": 10}}"#.write(
            toFile: dir.file("short.json"), atomically: true, encoding: .utf8)
        try #expect(findings("mass-delete", [store, "--config", dir.file("short.json")]).isEmpty)
        try #"{"thresholds": {"massDeleteShare": 1.5}}"#.write(
            toFile: dir.file("bad.json"), atomically: true, encoding: .utf8)
        let bad = try CLI.run(["check", store, "--config", dir.file("bad.json")])
        #expect(bad.status == 2 && bad.stderr.contains("massDeleteShare must be below 1"), "\(bad.stderr)")
        try #expect(findings("mass-delete", [appGroup]).isEmpty)
    }

    @Test func mirroringRunByTwoProcessesOrSilent() throws {
        let two = try findings("two-mirrors", [store])
        let writers = data(two.first)["writers"] as? [[String: Any]] ?? []
        #expect(
            writers.compactMap { $0["bundleID"] as? String } == [
                "com.example.clipboard", "com.example.clipboard.widget",
            ])
        #expect(writers.compactMap { $0["transactions"] as? Int } == [3, 1])
        // The App Group's mirroring runs in the app alone.
        try #expect(findings("two-mirrors", [Repository.fixtures + "/CloudKit/Tasks.sqlite"]).isEmpty)
        let dormant = try findings("dormant-mirror", [store])
        let d = data(dormant.first)
        #expect(d["lastMirroringTransaction"] as? Int == 10 && d["transactionsSince"] as? Int == 30)
        #expect((d["seconds"] as? Double).map { abs($0 - (2880 + 24 * 600 - 9) * 60) < 1 } == true, "\(d)")
        let dir = try TemporaryDirectory()
        try #"{"thresholds": {"dormantMirrorDays": 12}}"#.write(
            toFile: dir.file("long.json"), atomically: true, encoding: .utf8)
        try #expect(findings("dormant-mirror", [store, "--config", dir.file("long.json")]).isEmpty)
        // Mirroring active to the end, and a store that is not mirrored.
        try #expect(findings("dormant-mirror", [Repository.fixtures + "/CloudKit/Tasks.sqlite"]).isEmpty)
        try #expect(findings("dormant-mirror", [appGroup]).isEmpty)
    }

    @Test func spotlightIsAReaderNoFileShows() throws {
        let found = try findings("spotlight-reader", [store])
        #expect(data(found.first)["indexedProperties"] as? [String] == ["Item.title"])
        try #expect(findings("spotlight-reader", [appGroup]).isEmpty)
        let actors = try CLI.run(["actors", store]).json()
        let readers = actors["hiddenReaders"] as? [[String: Any]] ?? []
        #expect(
            readers.map { $0["kind"] as? String } == ["spotlight"]
                && readers.first?["evidence"] as? [String] == ["Item.title"])
        let table = try CLI.run(["actors", store, "--format", "table"], environment: ["COLUMNS": "80"])
        #expect(
            table.stdout.contains("Not in this table: Spotlight (NSCoreDataCoreSpotlightDelegate)"), "\(table.stdout)")
        let purge = try CLI.run(["purge", store, "--before", "tx:20"]).json()
        #expect((purge["hiddenReaders"] as? [[String: Any]])?.first?["kind"] as? String == "spotlight")
        let nothing = try CLI.run(["purge", store, "--before", "tx:1"]).json()
        #expect((nothing["hiddenReaders"] as? [Any])?.isEmpty == true)
        let preview = try CLI.run(
            ["purge", store, "--before", "tx:20", "--format", "table"], environment: ["COLUMNS": "80"])
        #expect(preview.stdout.contains("May break:"), "\(preview.stdout)")
        try #expect((CLI.run(["actors", appGroup]).json()["hiddenReaders"] as? [Any])?.isEmpty == true)
    }

    /// A store without a model cache shows its Spotlight reader through the model given with
    /// --model, in check, purge and report alike.
    @Test func spotlightThroughTheModelGiven() throws {
        let dir = try TemporaryDirectory()
        var fixture = HazardFixtures.scenario.store
        fixture.writesModelCache = false
        let path = dir.file("Clipboard.sqlite")
        try StoreWriter.write(fixture, to: path)
        let model = dir.file("Clipboard.xcdatamodel")
        try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
        try XcdatamodelWriter.contents(HazardFixtures.model).write(
            toFile: model + "/contents", atomically: true, encoding: .utf8)
        func readers(_ json: [String: Any]) -> [String] {
            (json["hiddenReaders"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        }
        #expect(try readers(CLI.run(["purge", path, "--before", "tx:20"]).json()).isEmpty)
        #expect(try readers(CLI.run(["purge", path, "--before", "tx:20", "--model", model]).json()) == ["spotlight"])
        #expect(try findings("spotlight-reader", [path, "--model", model]).count == 1)
        try #expect(findings("spotlight-reader", [path]).isEmpty)
    }

    @Test func swiftDataTokensKeptPerStore() throws {
        let r = try CLI.run(["actors", store, "--token", "app=" + hazards + "/swiftdata-tokens.json"]).json()
        let app = (r["actors"] as? [[String: Any]] ?? []).first { $0["actor"] as? String == "app" }
        #expect(app?["tokenTransactionNumber"] as? Int == 12, "\(String(describing: app))")
        let source = (r["sources"] as? [[String: Any]])?.first
        #expect(source?["otherStoreKeys"] as? [String] == [HazardFixtures.otherStoreUUID])
        // Without this store's entry, the dictionary is a token of other stores: foreign.
        let dir = try TemporaryDirectory()
        let other = HazardFixtures.otherStoreUUID
        try #"{"\#(other)":{"storeTokens":{"\#(other)":7}}}"#.write(
            toFile: dir.file("other.json"), atomically: true, encoding: .utf8)
        let foreign = try CLI.run(["actors", store, "--token", "app=" + dir.file("other.json")]).json()
        #expect(
            (foreign["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "app" }?["status"] as? String
                == "foreign-token")
    }

    @Test(.enabled(if: RealStores.available)) func swiftDataTokensOnTheRealStore() throws {
        let uuid = try CLI.run(["info", RealStores.swiftData]).json()["storeID"] as? String ?? ""
        let dir = try TemporaryDirectory()
        let other = HazardFixtures.otherStoreUUID
        try #"{"\#(uuid)":{"storeTokens":{"\#(uuid)":30}},"\#(other)":{"storeTokens":{"\#(other)":7}}}"#
            .write(toFile: dir.file("tokens.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["actors", RealStores.swiftData, "--token", "app=" + dir.file("tokens.json")]).json()
        let app = (r["actors"] as? [[String: Any]] ?? []).first { $0["actor"] as? String == "app" }
        #expect(
            app?["tokenTransactionNumber"] as? Int == 30 && app?["status"] as? String == "behind",
            "\(String(describing: app))")
        #expect((r["sources"] as? [[String: Any]])?.first?["otherStoreKeys"] as? [String] == [other])
    }

    /// The real stores show none of these, but for what they really hold.
    @Test(.enabled(if: RealStores.available)) func realStoresShowNone() throws {
        for real in [RealStores.photos, RealStores.photos15, RealStores.swiftData] {
            for rule in Self.newRules {
                try #expect(findings(rule, [real]).isEmpty, "\(rule) on \(real)")
            }
        }
    }

    @Test func watchTellsAMassDeleteAsItHappensOnce() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Clipboard.sqlite")
        try StoreWriter.write(HazardFixtures.scenario.store, to: path)
        let watcher = try StoreWatcher(path: path, since: .transaction(10)) { try $0.resolveModel() }
        var told: [DeleteBurst] = []
        var transactions = 0
        func poll() throws {
            _ = try watcher.poll { event in
                if case .massDelete(let burst) = event { told.append(burst) }
                if case .transaction = event { transactions += 1 }
                return true
            }
        }
        try poll()
        #expect(transactions == 30)
        #expect(told.map(\.deleted) == [40] && told.first?.author == "cleanup" && told.first?.objectsBefore == 60)
        // The cleanup deletes ten more ten seconds later: the same burst, not told again.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, \
                    ZPROCESSIDTS, ZTIMESTAMP)
                    SELECT 41, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP + 10 \
                    FROM ATRANSACTION WHERE Z_PK = 14
                    """)
            try db.execute(
                sql:
                    """
                    INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT \
                    Z_ENT, Z_OPT, 2, ZENTITY, ZENTITYPK + 10, 41 FROM ACHANGE WHERE ZTRANSACTIONID = 14 AND \
                    ZENTITYPK <= 40
                    """
            )
        }
        try queue.close()
        told = []
        try poll()
        #expect(transactions == 31 && told.isEmpty)
    }

    /// Deletes in batches, each within the window of the one before, are one burst however long
    /// it lasts; with a window shorter than the pauses, no batch is one.
    @Test func batchesChainIntoOneBurst() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Clipboard.sqlite")
        var store = HazardFixtures.scenario.store
        typealias C = FixtureStore.Change
        let delete = { (keys: ClosedRange<Int64>, minutes: Double) in
            FixtureStore.Transaction(
                timestamp: Scenarios.baseTime + minutes * 60, author: "sync",
                changes: keys.map { C(entity: "Item", primaryKey: $0, type: .delete) })
        }
        // Items 41–60 are in the store; 60 more were inserted and are deleted by sync, ten every
        // 50 seconds (six batches over 250 seconds).
        let inserts: [C] = (Int64(101)...160).map { C(entity: "Item", primaryKey: $0, type: .insert) }
        var transactions: [FixtureStore.Transaction] = Array(store.transactions.prefix(10))
        transactions.append(
            FixtureStore.Transaction(timestamp: Scenarios.baseTime + 600, author: "app", changes: inserts))
        for batch in 0..<6 {
            let first = Int64(101 + batch * 10)
            transactions.append(delete(first...(first + 9), 1000 + Double(batch) * 50 / 60))
        }
        store.transactions = transactions
        try StoreWriter.write(store, to: path)
        let found = try HistoryStore.open(path).deleteBursts()
        #expect(
            found.map(\.deleted) == [60] && found.first?.transactions == 6 && found.first?.author == "sync", "\(found)")
        // Rows now: 20 items (41–60); before the burst: those and the 60 sync deleted.
        #expect(found.first?.objectsBefore == 80)
        #expect(try HistoryStore.open(path).deleteBursts(DeleteBurstLimits(window: 40)).isEmpty)
        // Churn is no wipe: sync deletes what the app has just added, batch after batch.
        var churn: [FixtureStore.Transaction] = Array(store.transactions.prefix(10))
        for batch in 0..<6 {
            let first = Int64(101 + batch * 10)
            let added: [C] = (first...(first + 9)).map { C(entity: "Item", primaryKey: $0, type: .insert) }
            churn.append(
                FixtureStore.Transaction(
                    timestamp: Scenarios.baseTime + 60_000 + Double(batch) * 40, author: "app", changes: added))
            churn.append(delete(first...(first + 9), 1000 + Double(batch) * 40 / 60 + 1 / 3))
        }
        store.transactions = churn
        let churned = dir.file("Churn.sqlite")
        try StoreWriter.write(store, to: churned)
        #expect(try HistoryStore.open(churned).deleteBursts().isEmpty)
    }
}
