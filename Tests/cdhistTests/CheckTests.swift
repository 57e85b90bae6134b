import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// Every check rule fires on a fixture made to trigger it and stays silent on one that does not.
@Suite(.serialized) struct CheckTests {
    let m = Repository.fixtures + "/MergeState"
    let appGroup = Repository.fixtures + "/AppGroup/Tasks.sqlite"
    let purged = Repository.fixtures + "/Purged"

    /// Runs `check` for one rule; returns the exit status and the rule ids found.
    private func check(_ rule: String, _ args: [String]) throws -> (status: Int32, rules: [String], json: [String: Any])
    {
        let r = try CLI.run(["check"] + args + ["--rule", rule, "--fail-on", "info", "--format", "json"])
        #expect(r.status != 2, "\(rule) \(args): \(r.stderr)")
        let json = try r.json()
        #expect(json["kind"] as? String == "check")
        let findings = json["findings"] as? [[String: Any]] ?? []
        return (r.status, findings.compactMap { $0["rule"] as? String }, json)
    }

    private func expectFires(_ rule: String, _ args: [String]) throws {
        let r = try check(rule, args)
        #expect(r.status == 1, "\(rule) should fire on \(args)")
        #expect(r.rules.contains(rule), "\(rule) should fire on \(args)")
    }

    private func expectSilent(_ rule: String, _ args: [String]) throws {
        let r = try check(rule, args)
        #expect(r.status == 0 && r.rules.isEmpty, "\(rule) should be silent on \(args): \(r.rules)")
    }

    @Test func actorRules() throws {
        let now = ["--now", "2025-03-06T09:00:00Z"]
        let phtk = [m + "/Tasks.sqlite", "--defaults", m + "/phtk.plist"] + now
        try expectFires(
            "actor-expired", [purged + "/Tasks.sqlite", "--token", "widget=" + purged + "/widget-token.data"] + now)
        try expectSilent("actor-expired", phtk)
        try expectFires(
            "actor-missed-changes", [purged + "/Tasks.sqlite", "--defaults", purged + "/defaults.plist"] + now)
        try expectSilent("actor-missed-changes", phtk)
        try expectFires("foreign-token", [m + "/Tasks.sqlite", "--token", "x=" + m + "/foreign-token.data"] + now)
        try expectSilent("foreign-token", [m + "/Tasks.sqlite", "--token", "x=" + m + "/token.data"] + now)
        try expectFires("corrupt-token", [m + "/Tasks.sqlite", "--token", "x=" + m + "/corrupt-token.data"] + now)
        try expectSilent("corrupt-token", [m + "/Tasks.sqlite", "--token", "x=" + m + "/token.data"] + now)
        let dir = try TemporaryDirectory()
        try #"{"thresholds": {"maxPendingTransactions": 5}}"#.write(
            toFile: dir.file("strict.json"), atomically: true, encoding: .utf8)
        try expectFires("actor-behind", phtk + ["--config", dir.file("strict.json")])
        try expectSilent("actor-behind", phtk)
        // The widget saved #21, #23 and #31 after its position #20 and never moved it; the share
        // extension's one save after its position came before nothing of its own.
        let notMerging = try check("actor-not-merging", phtk)
        #expect(notMerging.status == 1)
        let flagged = (notMerging.json["findings"] as? [[String: Any]] ?? []).compactMap {
            $0["data"] as? [String: Any]
        }
        #expect(flagged.map { $0["actor"] as? String } == ["widget"])
        #expect(
            flagged.first?["ownTransactionsAfterPosition"] as? Int == 3
                && flagged.first?["ownTransactionsAfterOthers"] as? Int == 2)
        try expectSilent("actor-not-merging", [m + "/Tasks.sqlite", "--token", "x=" + m + "/token.data"] + now)
        let stale = [
            m + "/Tasks.sqlite", "--defaults", m + "/stale.plist", "--actor", "intents", "--actor", "app", "--actor",
            "widget",
        ]
        let late = try check("stale-actor", stale + ["--now", "2025-04-20T00:00:00Z"])
        #expect(late.status == 1)
        let finding = try #require((late.json["findings"] as? [[String: Any]])?.first)
        #expect((finding["data"] as? [String: Any])?["actor"] as? String == "intents")
        try expectSilent("stale-actor", stale + now)
    }

    /// A date set at launch (later than every transaction) and a store whose app keeps no position.
    @Test func positionsSetAtLaunchAndPositionsKeptNowhere() throws {
        let dir = try TemporaryDirectory()
        // HalloApp's key, its value the time the store was opened: a day after the newest transaction (2025-03-05 09:50).
        let launch = try #require(ISO8601DateFormatter().date(from: "2025-03-06T08:00:00Z"))
            .timeIntervalSinceReferenceDate
        let plist = [
            "lastHistoryTransactionTimeStamp-mainDataStore-mainApp": PlistValue.date(launch),
            "lastHistoryTransactionTimeStamp-mainDataStore-shareExtension": PlistValue.date(launch - 86400 * 2),
        ]
        try Data(PropertyList.encodeBinary(.dictionary(plist))).write(to: URL(fileURLWithPath: dir.file("hallo.plist")))
        let args = [m + "/Tasks.sqlite", "--defaults", dir.file("hallo.plist"), "--now", "2025-03-06T09:00:00Z"]
        let r = try check("position-after-newest", args)
        #expect(r.status == 1 && r.rules == ["position-after-newest"])
        #expect(
            ((r.json["findings"] as? [[String: Any]])?.first?["data"] as? [String: Any])?["actor"] as? String
                == "mainDataStore-mainApp")
        try expectSilent(
            "position-after-newest",
            [m + "/Tasks.sqlite", "--defaults", m + "/phtk.plist", "--now", "2025-03-06T09:00:00Z"])
        // No position anywhere and history never purged; silent once a position is given, or on a purged store.
        let none = try check("no-merge-position", [m + "/Tasks.sqlite"])
        #expect(none.status == 1 && none.rules == ["no-merge-position"])
        let message = (none.json["findings"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.contains("fetches all 34 transactions and 67 changes at every launch"), "\(message)")
        try expectSilent("no-merge-position", [m + "/Tasks.sqlite", "--defaults", m + "/phtk.plist"])
        try expectSilent("no-merge-position", [purged + "/Tasks.sqlite"])
    }

    /// A position saved under a mistyped author: check warns and names the closest author,
    /// actors suggests it; a declared reader and a real author are not flagged.
    @Test func mistypedAuthorIsFoundByEditDistance() throws {
        let dir = try TemporaryDirectory()
        let plist = dir.file("defaults.plist")
        try Data(
            PropertyList.encodeBinary(
                .dictionary([
                    "PersistentHistoryTrackingKit.lastToken.shareExtention": .date(762_800_000),
                    "PersistentHistoryTrackingKit.lastToken.app": .date(762_800_000),
                ]))
        ).write(to: URL(fileURLWithPath: plist))
        let args = [m + "/Tasks.sqlite", "--defaults", plist, "--now", "2025-03-06T09:00:00Z"]
        let r = try check("author-mismatch", args)
        #expect(r.status == 1)
        let findings = try #require(r.json["findings"] as? [[String: Any]])
        #expect(findings.count == 1)
        let data = try #require(findings.first?["data"] as? [String: Any])
        #expect(
            data["actor"] as? String == "shareExtention" && data["closestAuthor"] as? String == "shareExtension"
                && data["distance"] as? Int == 1)
        #expect(
            (findings.first?["message"] as? String)?.contains(
                "the closest author is shareExtension (1 character apart)") == true)
        let actors = try CLI.run(["actors"] + args).json()
        let actor = try #require(
            (actors["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "shareExtention" })
        #expect((actor["explanation"] as? String)?.contains("did you mean shareExtension?") == true, "\(actor)")
        try expectSilent("author-mismatch", args + ["--actor", "shareExtention"])
        #expect(NameSuggestion.closest(to: "[1,O]", among: ["[0,1]", "[1,0]", "app"]).map(\.name) == ["[1,0]"])
        #expect(NameSuggestion.closest(to: "chek", among: ["info", "check", "changes"]).map(\.name) == ["check"])
        #expect(NameSuggestion.closest(to: "x", among: ["info", "check"]).isEmpty)
    }

    /// A next model without an entity history names: the entity, the transactions the migration's
    /// truncation deletes (up to the newest naming it), the actors it breaks.
    @Test func nextModelThatDropsAnEntityTruncatesHistory() throws {
        let dir = try TemporaryDirectory()
        let next = ManagedObjectModel(entities: Scenarios.tasksModel.entities.filter { $0.name != "Project" })
        let modelDir = dir.file("Next.xcdatamodel")
        try FileManager.default.createDirectory(atPath: modelDir, withIntermediateDirectories: true)
        try XcdatamodelWriter.contents(next).write(toFile: modelDir + "/contents", atomically: true, encoding: .utf8)
        // Project's newest change is in #32; the token actor x stands at #31.
        let args = [
            m + "/Tasks.sqlite", "--next-model", modelDir, "--token", "x=" + m + "/token.data", "--now",
            "2025-03-06T09:00:00Z",
        ]
        let r = try check("migration-truncates-history", args)
        #expect(r.status == 1)
        let finding = try #require((r.json["findings"] as? [[String: Any]])?.first)
        #expect(finding["severity"] as? String == "error")
        let data = try #require(finding["data"] as? [String: Any])
        #expect(data["entities"] as? [String] == ["Project"])
        #expect(data["transactions"] as? Int == 32 && data["lastTransaction"] as? Int == 32)
        #expect(data["actors"] as? [String] == ["x"])
        #expect((finding["message"] as? String)?.contains("It breaks x (expired)") == true, "\(finding)")
        // The same model: nothing is removed, nothing to say; without --next-model the rule does not run.
        let same = dir.file("Same.xcdatamodel")
        try FileManager.default.createDirectory(atPath: same, withIntermediateDirectories: true)
        try XcdatamodelWriter.contents(Scenarios.tasksModel).write(
            toFile: same + "/contents", atomically: true, encoding: .utf8)
        try expectSilent("migration-truncates-history", [m + "/Tasks.sqlite", "--next-model", same])
        try expectSilent("migration-truncates-history", [m + "/Tasks.sqlite"])
    }

    /// The age of history is measured within the store: a copy examined years later does not age.
    @Test func historyAgeIsMeasuredFromTheNewestTransaction() throws {
        let dir = try TemporaryDirectory()
        try #"{"thresholds": {"maxHistoryShare": 1, "maxHistoryAgeDays": 1}}"#.write(
            toFile: dir.file("age.json"), atomically: true, encoding: .utf8)
        try #"{"thresholds": {"maxHistoryShare": 1, "maxHistoryAgeDays": 3}}"#.write(
            toFile: dir.file("older.json"), atomically: true, encoding: .utf8)
        // The fixture spans two days (2025-03-03 09:00 to 2025-03-05 09:50); now is ten years later.
        let later = ["--now", "2035-03-06T09:00:00Z"]
        let r = try check("history-old", [m + "/Tasks.sqlite", "--config", dir.file("age.json")] + later)
        let message = (r.json["findings"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(
            message.contains(
                "the oldest transaction is 2 days older than the newest (threshold 1 day). Nothing seems to purge it"),
            "\(message)")
        try expectSilent("history-old", [m + "/Tasks.sqlite", "--config", dir.file("older.json")] + later)
        try expectSilent("history-too-large", [m + "/Tasks.sqlite", "--config", dir.file("age.json")] + later)
        // History that starts after #1 is purged: the finding says a cleaner runs and keeps too much.
        try #"{"thresholds": {"maxHistoryAgeDays": 0.01}}"#.write(
            toFile: dir.file("hour.json"), atomically: true, encoding: .utf8)
        let purged = try check(
            "history-old", [Repository.fixtures + "/Purged/Tasks.sqlite", "--config", dir.file("hour.json")])
        let said = (purged.json["findings"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(
            said.contains("A cleaner purges it (the oldest remaining transaction is #21) but keeps more than this"),
            "\(said)")
    }

    /// Old or large history is a warning only when it is large: the real stores, small and never
    /// purged, pass a check that fails on warnings, and say at info that their history is old.
    @Test(arguments: RealStores.available ? [RealStores.photos, RealStores.photos15, RealStores.swiftData] : [])
    func smallRealStoresPassAtWarning(store: String) throws {
        let r = try CLI.run(["check", store, "--fail-on", "warning"])
        #expect(r.status == 0, "\(r.stdout)")
        let rules = (try r.json()["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect(!rules.contains("history-too-large"))
        #expect(rules.contains("history-old") == (store != RealStores.swiftData), "\(rules)")
    }

    @Test func storeRules() throws {
        let now = ["--now", "2025-03-06T09:00:00Z"]
        let dir = try TemporaryDirectory()
        try #"{"thresholds": {"maxHistoryShare": 0.5, "minHistoryBytes": 0}}"#.write(
            toFile: dir.file("share.json"), atomically: true, encoding: .utf8)
        try #"{"thresholds": {"maxHistoryShare": 0.9, "minHistoryBytes": 0}}"#.write(
            toFile: dir.file("loose.json"), atomically: true, encoding: .utf8)
        try #"{"thresholds": {"maxTransactions": 10}, "failOn": "warning"}"#.write(
            toFile: dir.file("small.json"), atomically: true, encoding: .utf8)
        // Most of the small fixture's file is history, but a share counts only past minHistoryBytes.
        try expectSilent("history-too-large", [appGroup] + now)
        try expectFires("history-too-large", [appGroup, "--config", dir.file("share.json")] + now)
        try expectSilent("history-too-large", [appGroup, "--config", dir.file("loose.json")] + now)
        let small = try CLI.run(
            ["check", appGroup, "--config", dir.file("small.json"), "--rule", "history-too-large", "--format", "json"]
                + now)
        #expect(small.status == 1)
        #expect(try small.json()["failOn"] as? String == "warning")

        try expectFires("missing-attribution", [appGroup])
        let attributed = dir.file("Attributed.sqlite")
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .rollback,
                transactions: Scenarios.appGroupHistory().filter { $0.author != nil }), to: attributed)
        try expectSilent("missing-attribution", [attributed])

        try expectFires(
            "cloudkit-purge",
            [
                m + "/Tasks.sqlite", "--defaults", m + "/phtk.plist", "--strategy", "apple", "--now",
                "2025-03-20T00:00:00Z",
            ])
        try expectSilent(
            "cloudkit-purge",
            [
                m + "/Tasks.sqlite", "--defaults", m + "/phtk.plist", "--strategy", "phtk-2", "--now",
                "2025-03-20T00:00:00Z",
            ])

        // A copy of the WAL-pending store whose -wal was lost.
        let lost = try TemporaryDirectory()
        for suffix in ["", "-shm"] {
            try FileManager.default.copyItem(
                atPath: Repository.fixtures + "/WALPending/Tasks.sqlite" + suffix,
                toPath: lost.file("Tasks.sqlite" + suffix))
        }
        try expectFires("wal-missing", [lost.file("Tasks.sqlite")])
        try expectSilent("wal-missing", [appGroup])
        try expectSilent("wal-missing", [Repository.fixtures + "/WALPending/Tasks.sqlite"])

        let orphans = dir.file("Orphans.sqlite")
        try FileManager.default.copyItem(atPath: appGroup, toPath: orphans)
        let q = try DatabaseQueue(path: orphans)
        try q.write { try $0.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK = 4") }
        try q.close()
        let orphanCheck = try check("orphan-changes", [orphans])
        #expect(orphanCheck.status == 1 && orphanCheck.rules == ["orphan-changes"])
        #expect(
            (((orphanCheck.json["findings"] as? [[String: Any]])?.first)?["data"] as? [String: Any])?["orphanChanges"]
                as? Int == 17)
        try expectSilent("orphan-changes", [appGroup])
        // Errors fail the default --fail-on error.
        #expect(try CLI.run(["check", orphans, "--rule", "orphan-changes"]).status == 1)

        var odd = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .rollback,
            transactions: [
                .init(
                    timestamp: Scenarios.baseTime, author: "app", contextName: "c",
                    changes: [
                        .init(entity: "Task", primaryKey: 1, type: .insert, rawEntityNumber: 99),
                        .init(entity: "Task", primaryKey: 1, type: .update, rawColumns: [0xFF, 0xFF, 0xFF]),
                    ])
            ])
        try StoreWriter.write(odd, to: dir.file("Odd.sqlite"))
        try expectFires("unknown-entity", [dir.file("Odd.sqlite")])
        try expectSilent("unknown-entity", [appGroup])
        try expectFires("columns-mismatch", [dir.file("Odd.sqlite")])
        try expectSilent("columns-mismatch", [appGroup])
        odd.transactions = []
        _ = odd

        let big = dir.file("Big.sqlite")
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .wal(keepInWAL: 0),
                transactions: []),
            to: big, generated: (1500, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 5) }))
        try expectSilent("free-pages", [big])
        #expect(try CLI.run(["purge", big, "--before", "tx:1400", "--execute", "--yes"]).status == 0)
        try expectFires("free-pages", [big])
    }

    @Test(.enabled(if: RealStores.available)) func realStoresHaveNoErrorsAndTheirTrueInfoFindings() throws {
        for store in [RealStores.photos, RealStores.swiftData] {
            let r = try CLI.run(["check", store, "--format", "json"])
            #expect(r.status == 0, "\(store): \(r.stdout)")
            let findings = try #require(try r.json()["findings"] as? [[String: Any]])
            #expect(!findings.contains { $0["severity"] as? String == "error" })
            let attribution = try #require(findings.first { $0["rule"] as? String == "missing-attribution" })
            let data = try #require(attribution["data"] as? [String: Any])
            if store == RealStores.swiftData {
                #expect(data["withoutAuthor"] as? Int == 38 && data["transactions"] as? Int == 38)
            } else {
                #expect(data["transactions"] as? Int == 516)
                #expect((data["withoutAuthor"] as? Int ?? 0) > 0)
            }
        }
    }

    @Test func usageErrors() throws {
        let bad = try CLI.run(["check", appGroup, "--rule", "nope"])
        #expect(bad.status == 2 && bad.stderr.contains("unknown rule 'nope'"))
        let dir = try TemporaryDirectory()
        try #"{"thresholdz": {}}"#.write(toFile: dir.file("typo.json"), atomically: true, encoding: .utf8)
        let typo = try CLI.run(["check", appGroup, "--config", dir.file("typo.json")])
        #expect(typo.status == 2 && typo.stderr == "cdhist: \(dir.file("typo.json")): unknown key 'thresholdz'\n")
        // The first problem in the file's order is told; a boolean is not a number.
        try #"{"failOn": "warning", "thresholds": {"maxTransactions": true}, "skip": [1]}"#.write(
            toFile: dir.file("bool.json"), atomically: true, encoding: .utf8)
        let bool = try CLI.run(["check", appGroup, "--config", dir.file("bool.json")])
        #expect(
            bool.status == 2
                && bool.stderr
                    == "cdhist: \(dir.file("bool.json")): thresholds.maxTransactions must be a non-negative number\n"
        )
        #expect(try CLI.run(["check", appGroup, "--fail-on", "fatal"]).status == 2)
    }
}
