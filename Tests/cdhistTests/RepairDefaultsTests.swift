import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// repair-defaults changes only the intended key, keeps the format, writes atomically with a backup.
@Suite struct RepairDefaultsTests {
    let fixtures = Repository.fixtures + "/MergeState"

    private func read(_ path: String) throws -> (PlistValue, PropertyList.Format) {
        let d = try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return (d.value, d.format)
    }

    /// Runs repair-defaults on a copy of `plist` and checks that only `key` changed, to `expected`.
    private func roundTrip(_ plist: String, _ args: [String], key: String, expected: (PlistValue?) -> Bool) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(plist)
        try FileManager.default.copyItem(atPath: fixtures + "/" + plist, toPath: path)
        let (before, format) = try read(path)
        let preview = try CLI.run(["repair-defaults", path] + args + ["--store", fixtures + "/Tasks.sqlite"])
        #expect(preview.status == 0, "\(plist) \(args): \(preview.stderr)")
        #expect(try read(path).0 == before, "the preview wrote")
        // Some moves skip transactions: allowed here, where what is tested is what is written.
        let run = try CLI.run(
            ["repair-defaults", path] + args + [
                "--store", fixtures + "/Tasks.sqlite", "--execute", "--allow-skip", "--backup",
                dir.file("backup.plist"),
            ])
        #expect(run.status == 0, "\(plist) \(args): \(run.stderr)")
        let (after, afterFormat) = try read(path)
        #expect(afterFormat == format)
        let old = try #require(before.dictionaryValue)
        let new = try #require(after.dictionaryValue)
        for k in Set(old.keys).union(new.keys) where k != key {
            #expect(old[k] == new[k], "\(plist): \(k) changed")
        }
        #expect(expected(new[key]), "\(plist): \(key) is \(String(describing: new[key]))")
        #expect(
            FileManager.default.contents(atPath: dir.file("backup.plist"))
                == FileManager.default.contents(atPath: fixtures + "/" + plist))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["backup.plist", plist])
    }

    @Test func everyPlistRoundTripsWithOnlyTheIntendedKeyChanged() throws {
        let t = { (n: Int) in Scenarios.appGroupTime(n) }
        try roundTrip(
            "phtk.plist", ["--actor", "widget", "--to-latest"], key: "PersistentHistoryTrackingKit.lastToken.widget"
        ) { $0 == .date(t(34)) }
        try roundTrip(
            "tracker.plist", ["--actor", "widget", "--to", "tx:25"], key: "PersistentHistoryTracker.lastToken.widget"
        ) { $0 == .date(t(25)) }
        try roundTrip("studapp.plist", ["--actor", "app", "--remove"], key: "lastHistoryTransactionTimestamp-app") {
            $0 == nil
        }
        try roundTrip(
            "swiftlee.plist", ["--actor", "widget", "--to-oldest"], key: "lastHistoryTransactionTimeStamp-widget"
        ) { $0 == .date(t(1) - 0.001) }
        try roundTrip(
            "appwise.plist", ["--actor", "widget", "--to", "2025-03-05T09:00:00Z"],
            key: "persistent-history-tracking:\(Scenarios.appGroupUUID)-widget"
        ) { $0 == .date(t(34) - 50 * 60) }
        // XML: whole seconds, and the format is kept.
        try roundTrip(
            "xml.plist", ["--actor", "widget", "--to", "tx:31"], key: "PersistentHistoryTrackingKit.lastToken.widget"
        ) { $0 == .date(t(31).rounded(.down)) }
        try roundTrip(
            "xml.plist", ["--actor", "shareExtension", "--remove"],
            key: "PersistentHistoryTrackingKit.lastToken.shareExtension"
        ) { $0 == nil }
        // A token is rewritten to a surviving transaction.
        try roundTrip("tokens.plist", ["--actor", "lastHistoryToken", "--to", "tx:20"], key: "lastHistoryToken") {
            value in
            guard let bytes = value?.dataValue else { return false }
            return (try? HistoryTokenDecoder.decode(archive: bytes, source: "t"))
                == HistoryToken(storeUUID: Scenarios.appGroupUUID, transactionNumber: 20)
        }
        try roundTrip(
            "stale.plist", ["--actor", "intents", "--remove"], key: "PersistentHistoryTrackingKit.lastToken.intents"
        ) { $0 == nil }
        // An actor without a key gets one in the plist's format.
        try roundTrip(
            "phtk.plist", ["--actor", "intents", "--to-latest"], key: "PersistentHistoryTrackingKit.lastToken.intents"
        ) { $0 == .date(t(34)) }
    }

    /// Moving an actor forward past what others wrote is said: it would never merge them.
    @Test func aMovePastUnmergedTransactionsWarns() throws {
        let store = fixtures + "/Tasks.sqlite"
        let latest = try CLI.run([
            "repair-defaults", fixtures + "/phtk.plist", "--actor", "widget", "--to-latest", "--store", store,
            "--format", "json",
        ])
        #expect(try latest.json()["skippedTransactions"] as? Int == 11, "\(latest.stdout)")
        // As many as actors says the widget has pending.
        let actors = try CLI.run(["actors", store, "--defaults", fixtures + "/phtk.plist", "--format", "json"]).json()
        #expect(
            (actors["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "widget" }?["pendingCount"]
                as? Int == 11)
        let table = try CLI.run([
            "repair-defaults", fixtures + "/phtk.plist", "--actor", "widget", "--to-latest", "--store", store,
            "--format", "table",
        ])
        #expect(
            table.stdout.contains("Warning: widget would skip 11 transactions by others it has not merged"),
            "\(table.stdout)")
        for safe in [["--to-oldest"], ["--to", "#20"]] {
            let r = try CLI.run(
                [
                    "repair-defaults", fixtures + "/phtk.plist", "--actor", "widget", "--store", store, "--format",
                    "json",
                ] + safe)
            #expect(try r.json()["skippedTransactions"] as? Int == 0, "\(safe): \(r.stdout)")
        }
        let partWay = try CLI.run([
            "repair-defaults", fixtures + "/phtk.plist", "--actor", "widget", "--to", "#25", "--store", store,
            "--format", "json",
        ])
        #expect(try partWay.json()["skippedTransactions"] as? Int == 3, "\(partWay.stdout)")
    }

    /// The library refuses to write a move past transactions the actor has not merged unless
    /// the caller allows it: the plist stays as it was and no backup is left.
    @Test func aMovePastUnmergedTransactionsIsWrittenOnlyWhenAllowed() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("phtk.plist")
        try FileManager.default.copyItem(atPath: fixtures + "/phtk.plist", toPath: path)
        let move = [
            "repair-defaults", path, "--actor", "widget", "--to-latest", "--store", fixtures + "/Tasks.sqlite",
            "--execute",
        ]
        let before = try DirectoryState(dir.path)
        let refused = try CLI.run(move)
        #expect(refused.status == 2, "\(refused.stdout)")
        #expect(
            refused.stderr
                == """
                cdhist: \(path): this move makes widget skip 11 transactions by others it has not merged: it \
                would never merge them; 
                """
                    + """
                    move it with --to-oldest or --remove to have it merge them, or give --allow-skip to move it \
                    anyway\n
                    """,
            "\(refused.stderr)")
        #expect(try DirectoryState(dir.path) == before)
        let plan = try DefaultsRepair.plan(
            path: path, actor: "widget", target: .latest, store: try HistoryStore.open(fixtures + "/Tasks.sqlite"))
        #expect(throws: RepairError.wouldSkipTransactions(path: path, actor: "widget", count: 11)) {
            try DefaultsRepair.write(plan)
        }
        let allowed = try CLI.run(move + ["--allow-skip", "--format", "json"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try allowed.json()["skippedTransactions"] as? Int == 11)
        #expect(try DirectoryState(dir.path) != before)
    }

    @Test func impossibleRepairsAreClearErrors() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("tokens.plist")
        try FileManager.default.copyItem(atPath: fixtures + "/tokens.plist", toPath: path)
        let date = try CLI.run(["repair-defaults", path, "--actor", "lastHistoryToken", "--to", "2025-03-04"])
        #expect(date.status == 2 && date.stderr.contains("keeps a token, not a date"))
        let missing = try CLI.run(["repair-defaults", path, "--actor", "nobody", "--remove"])
        #expect(missing.status == 2 && missing.stderr.contains("no key of actor 'nobody' to remove"))
        let noStore = try CLI.run(["repair-defaults", path, "--actor", "lastHistoryToken", "--to-latest"])
        #expect(noStore.status == 2 && noStore.stderr.contains("needs the store (--store)"))
        let gone = try CLI.run([
            "repair-defaults", path, "--actor", "lastHistoryToken", "--to", "tx:99", "--store",
            fixtures + "/Tasks.sqlite",
        ])
        #expect(gone.status == 2 && gone.stderr.contains("transaction #99 does not exist"))
        let foreign = try CLI.run([
            "repair-defaults", path, "--actor", "lastHistoryToken", "--to",
            "token:00000000-0000-0000-0000-000000000000:12",
            "--store", fixtures + "/Tasks.sqlite",
        ])
        #expect(
            foreign.status == 2
                && foreign.stderr.contains(
                    "\(path): token 00000000-0000-0000-0000-000000000000:12 is for another store")
        )
        let token = try CLI.run([
            "repair-defaults", path, "--actor", "lastHistoryToken", "--to",
            "token:6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87:12",
            "--store", fixtures + "/Tasks.sqlite", "--format", "json",
        ])
        #expect(
            token.status == 0
                && token.stdout.contains("\"new\":{\"token\":{\"6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87\":12}}"),
            "\(token.stdout)")
        let two = try CLI.run(["repair-defaults", path, "--actor", "x", "--remove", "--to-latest"])
        #expect(two.status == 2)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let ro = try CLI.run(["repair-defaults", path, "--actor", "lastHistoryToken", "--remove", "--execute"])
        #expect(ro.status == 2 && ro.stderr.contains("the plist is read-only"))
        #expect(
            FileManager.default.contents(atPath: path)
                == FileManager.default.contents(atPath: fixtures + "/tokens.plist"))
    }
}
