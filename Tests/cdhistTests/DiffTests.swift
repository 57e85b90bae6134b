import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// `cdhist diff`: copies of a store compared, on the fixture and on copies of the real stores.
@Suite struct DiffTests {
    static func part(_ json: [String: Any], _ key: String) -> [String: Any] { json[key] as? [String: Any] ?? [:] }

    @Test(arguments: WatchTests.stores) func identicalCopiesThenPurgedAndAppended(store: String) throws {
        let dir = try TemporaryDirectory()
        let old = try WatchTests.copy(store, into: dir)
        let newDir = try TemporaryDirectory()
        let new = try WatchTests.copy(store, into: newDir)
        let same = try CLI.run(["diff", old, new])
        #expect(same.status == 0, "\(same.stderr)")
        let identical = try same.json()
        #expect(identical["identical"] as? Bool == true)
        let total = try WatchTests.lastTransaction(old)
        #expect(
            Self.part(identical, "unchanged")["transactions"] as? Int
                == (try CLI.run(["info", old]).json()["transactionCount"] as? Int))

        // The new copy: purged through #N (their changes counted first), then K transactions appended by another process.
        let first = try #require(try CLI.run(["info", new]).json()["firstTransactionNumber"] as? Int)
        let n = first + 6
        let queue = try DatabaseQueue(path: new)
        let (purgedTransactions, purgedChanges) = try queue.write { db -> (Int, Int) in
            let changes =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID <= ?", arguments: [n]) ?? 0
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", arguments: [n])
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= ?", arguments: [n])
            return (db.changesCount, changes)
        }
        try queue.close()
        let k = 9
        let writer = try CLI.run(
            ["live-writer", new, "--transactions", String(k), "--interval-ms", "0", "--report", dir.file("w.json")],
            executable: "cdhist-fixtures")
        #expect(writer.status == 0, "\(writer.stderr)")
        let report = try JSONDecoder().decode(
            LiveWriter.Report.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("w.json"))))

        let r = try CLI.run(["diff", old, new])
        #expect(r.status == 1, "\(r.stderr)")
        let diff = try r.json()
        #expect(diff["identical"] as? Bool == false)
        let removed = Self.part(diff, "removed")
        let added = Self.part(diff, "added")
        #expect(
            removed["transactions"] as? Int == purgedTransactions && removed["changes"] as? Int == purgedChanges,
            "\(removed)")
        #expect(Self.part(removed, "first")["transactionNumber"] as? Int == first)
        #expect(Self.part(removed, "last")["transactionNumber"] as? Int == n)
        #expect(added["transactions"] as? Int == k && added["changes"] as? Int == report.changes, "\(added)")
        #expect(Self.part(added, "first")["transactionNumber"] as? Int == total + 1)
        #expect(Self.part(added, "last")["transactionNumber"] as? Int == total + k)
        #expect(Self.part(diff, "rewritten")["transactions"] as? Int == 0)
        // The writer's authors, and the changes of each.
        let authors = (added["authors"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
            $0[$1["author"] as? String ?? "-"] = $1["transactions"] as? Int
        }
        #expect(authors == ["app": 3, "widget": 3, "shareExtension": 3])
        // Net effect: each transaction inserts one object; deletes reach back to objects inserted before or in this run.
        let net = added["net"] as? [[String: Any]] ?? []
        #expect(net.count == 1)
        let effect = try #require(net.first)
        #expect((effect["inserted"] as? Int ?? 0) + (effect["insertedAndDeleted"] as? Int ?? 0) == k)

        // Filters narrow both sides alike: only the widget's transactions.
        let widget = try CLI.run(["diff", old, new, "--author", "widget"]).json()
        #expect(Self.part(widget, "added")["transactions"] as? Int == 3)
    }

    /// Core Data's migrations share a row in the table, as in authors (JSON keeps each).
    @Test(.enabled(if: RealStores.available)) func migrationAuthorsShareARow() throws {
        let dir = try TemporaryDirectory()
        let old = try WatchTests.copy(RealStores.photos, into: dir)
        let newDir = try TemporaryDirectory()
        try newDir.copy(from: (RealStores.photos as NSString).deletingLastPathComponent, prefix: "Photos.sqlite")
        let new = newDir.file("Photos.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: new + suffix)
        }
        let purge = try CLI.run([
            "purge", new, "--before", "tx:400", "--execute", "--yes", "--allow-expire", "--no-backup",
        ])
        #expect(purge.status == 0, "\(purge.stderr)")
        let table = try CLI.run(["diff", old, new, "--format", "table"], environment: ["COLUMNS": "80"]).lines
        #expect(
            table.contains { $0.hasPrefix("Core Data migration (3 authors) ") && $0.hasSuffix(" 3        0") },
            "\(table)")
        #expect(!table.contains { $0.hasPrefix("com.apple.coredata") })
        let all = try CLI.run(["diff", old, new, "--format", "table", "--all"], environment: ["COLUMNS": "80"]).lines
        #expect(all.filter { $0.hasPrefix("com.apple.coredata.schemamigrator") }.count == 3)
        let json = try CLI.run(["diff", old, new]).json()
        let authors = Self.part(json, "removed")["authors"] as? [[String: Any]] ?? []
        #expect(
            authors.filter { ($0["author"] as? String)?.hasPrefix("com.apple.coredata.schemamigrator") == true }.count
                == 3)
    }

    /// History that begins at a Core Data migration: info says what that may mean.
    @Test(.enabled(if: RealStores.available)) func infoNamesAMigrationAtTheCut() throws {
        let dir = try TemporaryDirectory()
        try dir.copy(from: (RealStores.photos as NSString).deletingLastPathComponent, prefix: "Photos.sqlite")
        let store = dir.file("Photos.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store + suffix)
        }
        // #103 is the third migration (lightweight migration from model with digest { W3zhvi2H… }).
        #expect((try CLI.run(["info", store]).json()["purgeTraces"] as? [String: Any])?["migrationAtCut"] is NSNull)
        #expect(
            try CLI.run(["purge", store, "--before", "tx:103", "--execute", "--yes", "--allow-expire", "--no-backup"])
                .status == 0)
        let traces = try #require(try CLI.run(["info", store]).json()["purgeTraces"] as? [String: Any])
        #expect(
            (traces["migrationAtCut"] as? String)?.hasPrefix(
                "com.apple.coredata.schemamigrator: lightweight migration from model with digest { W3zhvi2H") == true)
        let table = try CLI.run(["info", store, "--format", "table"], environment: ["COLUMNS": "200"]).stdout
        #expect(table.contains("the first transaction, #103, is Core Data's schema migration"), "\(table)")
    }

    @Test func aRewrittenTransactionAndItsTable() throws {
        let dir = try TemporaryDirectory()
        let new = try WatchTests.copy(Repository.fixtures + "/Later/Tasks.sqlite", into: dir)
        let queue = try DatabaseQueue(path: new)
        try queue.write { db in
            try db.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = ZTIMESTAMP + 1 WHERE Z_PK = 20")
            try db.execute(sql: "UPDATE ACHANGE SET ZENTITYPK = 99 WHERE ZTRANSACTIONID = 25")
        }
        try queue.close()
        let r = try CLI.run(["diff", Repository.fixtures + "/AppGroup/Tasks.sqlite", new])
        #expect(r.status == 1)
        let diff = try r.json()
        let rewritten = Self.part(diff, "rewritten")
        #expect(rewritten["transactions"] as? Int == 2)
        #expect(
            Self.part(rewritten, "first")["transactionNumber"] as? Int == 20
                && Self.part(rewritten, "last")["transactionNumber"] as? Int == 25)
        #expect(Self.part(diff, "removed")["transactions"] as? Int == 5)
        #expect(Self.part(diff, "added")["transactions"] as? Int == 4)
        #expect(Self.part(diff, "unchanged")["transactions"] as? Int == 34 - 5 - 2)
        // The Later fixture's four transactions: Task 26 inserted (and updated), Task 12 deleted, Task 3 renamed, Tag 3 inserted.
        let net = (Self.part(diff, "added")["net"] as? [[String: Any]] ?? []).reduce(into: [String: [String: Any]]()) {
            $0[$1["entity"] as? String ?? ""] = $1
        }
        #expect(
            net["Task"]?["inserted"] as? Int == 1 && net["Task"]?["updated"] as? Int == 1
                && net["Task"]?["deleted"] as? Int == 1)
        #expect((net["Task"]?["properties"] as? [[String: Any]])?.first?["name"] as? String == "title")
        #expect(net["Tag"]?["inserted"] as? Int == 1 && net["Project"]?["updated"] as? Int == 1)

        let table = try CLI.run(
            ["diff", Repository.fixtures + "/AppGroup/Tasks.sqlite", new, "--format", "table", "--utc"],
            environment: ["COLUMNS": "80"])
        #expect(table.status == 1)
        #expect(
            table.stdout.contains("Rewritten: 2 transactions (4 changes), #20 (2025-03-04 11:30:01.000Z) … #25"),
            "\(table.stdout)")
        #expect(table.stdout.contains("Net effect of the added transactions on objects"))
        #expect(table.lines.allSatisfy { $0.count <= 80 }, "\(table.stdout)")
    }

    @Test func storesOfAnotherUUIDAreRefusedUnlessForced() throws {
        let old = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        let other = Repository.fixtures + "/Purged/Tasks.sqlite"
        let refused = try CLI.run(["diff", old, other])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == """
                cdhist: new '\(other)': a different store from \(old) (UUID \(Scenarios.purgedUUID), not \
                \(Scenarios.appGroupUUID)); --force compares them anyway\n
                """
        )
        let forced = try CLI.run(["diff", old, other, "--force"])
        #expect(forced.status == 1)
        // The Purged fixture is the same history without transactions 1–20.
        #expect(Self.part(try forced.json(), "removed")["transactions"] as? Int == 20)
        #expect(Self.part(try forced.json(), "unchanged")["transactions"] as? Int == 14)
        if RealStores.available {
            let real = try CLI.run(["diff", RealStores.photos, RealStores.swiftData])
            #expect(real.status == 2 && real.stderr.contains("a different store from"))
        }
    }
}
