import Foundation
import TestSupport
import Testing

/// The command line on real stores written by Apple's frameworks.
@Suite(.enabled(if: RealStores.available)) struct RealStoreCLITests {
    @Test func infoCountsMatchTheRealStoresReadme() throws {
        let photos = try CLI.run(["info", RealStores.photos, "--change-types"]).json()
        #expect(photos["transactionCount"] as? Int == 516)
        #expect(photos["changeCount"] as? Int == 1776)
        #expect(photos["updateCount"] as? Int == 1193)
        #expect(photos["deleteCount"] as? Int == 52)
        #expect(photos["storeID"] as? String == "FE941CCE-3AF4-4243-907C-C2233C09008D")
        let swiftData = try CLI.run(["info", RealStores.swiftData]).json()
        #expect(swiftData["transactionCount"] as? Int == 38)
        #expect(swiftData["changeCount"] as? Int == 55)
        let table = try CLI.run(["info", RealStores.photos, "--format", "table", "--change-types"]).stdout
        #expect(table.contains("Transactions:      516 (#1…#516)"))
        #expect(table.contains("Changes:           1776 (531 inserts, 1193 updates, 52 deletes)"))
    }

    /// The first transaction with an update and the first with a tombstone, found through `changes`.
    private func firstTransaction(type: String, where predicate: ([String: Any]) -> Bool) throws -> Int {
        let changes = try #require(
            try CLI.run(["changes", RealStores.photos, "--type", type]).json()["changes"] as? [[String: Any]])
        return try #require(changes.first(where: predicate)?["transactionNumber"] as? Int)
    }

    @Test func showDecodesUpdatesAndTombstones() throws {
        let update = try firstTransaction(type: "update") { _ in true }
        let shown = try #require(
            try CLI.run(["show", RealStores.photos, String(update)]).json()["transaction"] as? [String: Any])
        let changes = try #require(shown["changes"] as? [[String: Any]])
        let updated = try #require(changes.first { $0["changeType"] as? String == "update" })
        let names = try #require(updated["updatedProperties"] as? [String])
        #expect(!names.isEmpty)
        #expect(updated["warnings"] == nil)
        let table = try CLI.run(["show", RealStores.photos, String(update), "--format", "table"]).stdout
        #expect(table.contains(names.joined(separator: ", ")))

        let delete = try firstTransaction(type: "delete") { ($0["tombstone"] as? [String: Any])?.isEmpty == false }
        let deleted = try #require(
            try CLI.run(["show", RealStores.photos, "tx:\(delete)"]).json()["transaction"] as? [String: Any])
        let tombstoned = try #require(
            (deleted["changes"] as? [[String: Any]])?.first { ($0["tombstone"] as? [String: Any])?.isEmpty == false })
        let values = try #require(tombstoned["tombstone"] as? [String: Any])
        #expect(values.keys.allSatisfy { !$0.hasPrefix("ZTOMBSTONE") })
        let deleteTable = try CLI.run(["show", RealStores.photos, String(delete), "--format", "table"]).stdout
        for key in values.keys { #expect(deleteTable.contains("\(key)=")) }
    }

    @Test func exportEmitsOneValidLinePerTransaction() throws {
        let transactionKeys: Set<String> = [
            "format", "transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName",
            "bundleID", "processID", "storeID", "token", "changeCount", "queryGenerationLength", "changes",
        ]
        let changeKeys: Set<String> = [
            "changeID", "transactionNumber", "changeType", "entity", "entityNumber", "entityPK",
            "changedObjectID", "updatedProperties", "updatedSlots", "tombstone",
        ]
        for (store, count) in [(RealStores.photos, 516), (RealStores.swiftData, 38)] {
            let r = try CLI.run(["export", store])
            #expect(r.status == 0)
            #expect(r.lines.count == count)
            var changes = 0
            for line in r.lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(Set(object.keys) == transactionKeys)
                for change in object["changes"] as? [[String: Any]] ?? [] {
                    #expect(Set(change.keys).subtracting(["warnings"]) == changeKeys)
                    changes += 1
                }
                #expect((object["changes"] as? [Any])?.count == object["changeCount"] as? Int)
            }
            #expect(changes == (store == RealStores.photos ? 1776 : 55))
        }
    }
}
