import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// CloudKit's exporter as an actor in every command, the `cloudkit` command, and JSON tokens, on the fixtures.
@Suite struct CloudKitCLITests {
    let fixture = Repository.fixtures + "/CloudKit"
    let now = "2025-03-06T09:00:00Z"

    func exporter(_ doc: [String: Any]) throws -> [String: Any] {
        try #require((doc["actors"] as? [[String: Any]])?.first { $0["kind"] as? String == "cloudkit" })
    }

    /// Writes the `CloudKit-…` variants into a temporary folder.
    static func variants() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        for v in CloudKitFixtures.variants { try FixtureFiles.write(v, into: dir.path) }
        return dir
    }

    @Test func actorsShowTheExporterWithoutAnyFlag() throws {
        let r = try CLI.run(["actors", fixture + "/Tasks.sqlite", "--now", now])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try r.json()
        let e = try exporter(doc)
        #expect(e["actor"] as? String == "CloudKit export")
        #expect(e["status"] as? String == "behind")
        #expect(e["pendingCount"] as? Int == 5)
        #expect(e["ownTransactionsAfterPosition"] as? Int == 1)
        #expect(e["mirroredRecords"] as? Int == 20)
        #expect(e["tokenTransactionNumber"] as? Int == 28)
        let sources = try #require(doc["sources"] as? [[String: Any]])
        #expect(sources.map { $0["kind"] as? String } == ["CloudKit mirroring, 14 ANSCK tables"])
        // With the app's own merge state, in one table.
        let table = try CLI.run([
            "actors", fixture + "/Tasks.sqlite", "--defaults", fixture + "/swiftdata.plist", "--key-prefix",
            "historyToken.",
            "--now", now, "--utc", "--format", "table",
        ]).stdout
        let lines = table.components(separatedBy: "\n")
        #expect(lines.contains { $0.hasPrefix("app ") && $0.contains("up-to-date") && $0.contains("#34") })
        #expect(lines.contains { $0.hasPrefix("widget ") && $0.contains("behind") && $0.contains("#20") })
        #expect(
            lines.contains {
                $0.hasPrefix("CloudKit export ") && $0.contains("#28 2025-03-04 17:30:00.000Z (export token)")
                    && $0.contains("5 (app 3, shareExtension 1, widget 1)")
                    && $0.contains("and 1 by CloudKit itself, not exported")
            })
    }

    @Test func everyVariantShowsItsStatus() throws {
        let dir = try Self.variants()
        let expected = [
            "UpToDate": "up-to-date", "Expired": "expired", "Corrupt": "corrupt-token", "Foreign": "foreign-token",
            "Missing": "never-merged", "MetadataOnly": "behind", "OlderColumns": "behind", "StoreMetadata": "behind",
        ]
        for (name, status) in expected {
            let doc = try CLI.run(["actors", dir.path + "/CloudKit-\(name)/Tasks.sqlite", "--now", now]).json()
            #expect(try exporter(doc)["status"] as? String == status, "\(name)")
        }
    }

    @Test func aPurgePastThePositionNamesTheResetAndIsRefused() throws {
        let copy = try TemporaryDirectory()
        try copy.copy(from: fixture, prefix: "Tasks.sqlite")
        let store = copy.file("Tasks.sqlite")
        let before = try DirectoryState(copy.path)
        let preview = try CLI.run(["purge", store, "--before", "tx:29"]).json()
        let consequences = try #require(preview["consequences"] as? [[String: Any]])
        #expect(consequences.count == 1)
        #expect(consequences.first?["kind"] as? String == "cloudkit")
        #expect(consequences.first?["status"] as? String == "expired")
        #expect(
            consequences.first?["message"] as? String
                == """
                CloudKit's export position (transaction #28) would be purged: on its next export the mirror finds \
                its token expired, resets (reason: history expired) and re-uploads every record (20 mirrored \
                records)
                """
        )
        let refused = try CLI.run(["purge", store, "--before", "tx:29", "--execute", "--yes", "--no-backup"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("this purge would break CloudKit export (expired); give --allow-expire"))
        #expect(try DirectoryState(copy.path) == before)
        // Up to the position: CloudKit's transactions are a warning, not a break.
        let table = try CLI.run(["purge", store, "--before", "tx:28", "--format", "table"]).stdout
        #expect(table.contains("5 transactions by NSCloudKitMirroringDelegate would be deleted"))
        #expect(table.contains("Breaks:       none of the 1 actor with a position"))
        // Forced: it purges, and check then fails on the expired position.
        let forced = try CLI.run([
            "purge", store, "--before", "tx:29", "--execute", "--yes", "--no-backup", "--allow-expire",
        ])
        #expect(forced.status == 0, "\(forced.stderr)")
        let check = try CLI.run(["check", store, "--now", now])
        #expect(check.status == 1)
        let rules = try (check.json()["findings"] as? [[String: Any]] ?? []).map { $0["rule"] as? String }
        #expect(rules.contains("cloudkit-expired"))
    }

    @Test func cleanersThatWouldExpireThePositionSaySo() throws {
        let doc = try CLI.run(["actors", fixture + "/Tasks.sqlite", "--now", "2025-03-20T00:00:00Z"]).json()
        let apple = try #require((doc["cleaners"] as? [[String: Any]])?.first { $0["strategy"] as? String == "apple" })
        #expect((apple["breaks"] as? [[String: Any]])?.map { $0["actor"] as? String } == ["CloudKit export"])
        #expect((apple["breaks"] as? [[String: Any]])?.first?["status"] as? String == "expired")
        let table = try CLI.run(
            ["actors", fixture + "/Tasks.sqlite", "--now", "2025-03-20T00:00:00Z", "--format", "table"],
            environment: ["COLUMNS": "80"]
        ).lines
        // The row of apple's cut-off deletes 34 transactions; what it breaks is said under it.
        let row = try #require(table.firstIndex { $0.contains(" 34  apple") }, "\(table)")
        #expect(table[row + 1] == "    breaks CloudKit export (expired)", "\(table)")
    }

    @Test func checkHasARuleForEveryExporterProblem() throws {
        let dir = try Self.variants()
        func rules(_ store: String, _ extra: [String] = []) throws -> [String: String] {
            let r = try CLI.run(["check", store, "--now", now] + extra)
            let findings = try r.json()["findings"] as? [[String: Any]] ?? []
            return Dictionary(
                findings.map { ($0["rule"] as? String ?? "", $0["severity"] as? String ?? "") },
                uniquingKeysWith: { a, _ in a })
        }
        #expect(try rules(dir.path + "/CloudKit-Expired/Tasks.sqlite")["cloudkit-expired"] == "error")
        #expect(try rules(dir.path + "/CloudKit-Corrupt/Tasks.sqlite")["cloudkit-token-unreadable"] == "error")
        #expect(try rules(dir.path + "/CloudKit-Foreign/Tasks.sqlite")["cloudkit-token-unreadable"] == "error")
        let behind = try rules(fixture + "/Tasks.sqlite")
        #expect(behind["cloudkit-export-behind"] == nil)
        #expect(behind["cloudkit-records-pending"] == "info")
        #expect(
            try rules(fixture + "/Tasks.sqlite", ["--max-export-pending", "4"])["cloudkit-export-behind"] == "warning")
        let strict = try CLI.run([
            "check", fixture + "/Tasks.sqlite", "--now", now, "--max-export-pending", "4", "--rule",
            "cloudkit-export-behind",
            "--fail-on", "warning",
        ])
        #expect(strict.status == 1)
        let message = try #require((try strict.json()["findings"] as? [[String: Any]])?.first?["message"] as? String)
        #expect(
            message.hasPrefix(
                "CloudKit has 5 transactions to export, the oldest 1 day old (thresholds: 4 transactions, 7 days)"),
            "\(message)")
        // Behind by time as well as by count: without --now, by the store's own time (16 hours before its newest transaction).
        let lagConfig = try TemporaryDirectory()
        try Data(#"{"thresholds": {"maxLagDays": 0.5}}"#.utf8).write(to: URL(fileURLWithPath: lagConfig.file("c.json")))
        let byTime = try CLI.run([
            "check", fixture + "/Tasks.sqlite", "--config", lagConfig.file("c.json"), "--rule",
            "cloudkit-export-behind",
        ]).json()
        let late = try #require((byTime["findings"] as? [[String: Any]])?.first?["message"] as? String)
        #expect(
            late.hasPrefix(
                """
                CloudKit has 5 transactions to export, its position lies 16 hours before the newest transaction \
                (thresholds: 100 transactions, 12 hours)
                """
            ), "\(late)")
        // Its newest export failed (CKErrorDomain 3) and none succeeded after it: stuck, named, whatever the clock.
        for clock in [[], ["--now", now]] {
            let failing = try CLI.run(
                ["check", fixture + "/Tasks.sqlite", "--rule", "cloudkit-export-failing", "--fail-on", "warning"]
                    + clock)
            #expect(failing.status == 1)
            let finding = try #require((try failing.json()["findings"] as? [[String: Any]])?.first)
            #expect(finding["severity"] as? String == "warning")
            #expect(
                (finding["message"] as? String)?.hasPrefix(
                    """
                    CloudKit's last export at 2025-03-05 09:41:00Z failed with CKErrorDomain 3 \
                    (networkUnavailable: the device had no network), and none succeeded after it; 5 transactions \
                    of the app's authors wait to be exported.
                    """
                ) == true, "\(finding)")
            #expect((finding["data"] as? [String: Any])?["errorName"] as? String == "networkUnavailable")
        }
        // actors and cloudkit give the exporter the same verdict.
        let exporter = try CLI.run(["cloudkit", fixture + "/Tasks.sqlite"]).json()["exporter"] as? [String: Any]
        #expect(
            (exporter?["explanation"] as? String)?.contains(
                "its last export (2025-03-05 09:41:00Z) failed with CKErrorDomain 3 (networkUnavailable") == true)
        let pending = try CLI.run([
            "check", fixture + "/Tasks.sqlite", "--now", now, "--rule", "cloudkit-records-pending", "--format", "table",
        ]).stdout
        #expect(
            pending.contains("2 of 20 mirrored records await upload and 1 await deletion in iCloud (Task: 2, Tag: 1)"))
        let config = try TemporaryDirectory()
        try Data(#"{"thresholds": {"maxExportPendingTransactions": 2}}"#.utf8).write(
            to: URL(fileURLWithPath: config.file("c.json")))
        #expect(
            try rules(fixture + "/Tasks.sqlite", ["--config", config.file("c.json")])["cloudkit-export-behind"]
                == "warning")
        // A store that is not mirrored has none of them.
        #expect(
            try rules(Repository.fixtures + "/AppGroup/Tasks.sqlite").keys.allSatisfy {
                !$0.hasPrefix("cloudkit-") || $0 == "cloudkit-purge"
            })
    }

    @Test func cloudkitCommandShowsTheMirror() throws {
        let r = try CLI.run(["cloudkit", fixture + "/Tasks.sqlite", "--now", now, "--objects", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try r.json()
        #expect(doc["kind"] as? String == "cloudkit")
        #expect(doc["mirrored"] as? Bool == true)
        #expect(doc["transactionsAfterPosition"] as? Int == 6)
        #expect(doc["changesAfterPosition"] as? Int == 16)
        let records = try #require(doc["records"] as? [String: Any])
        #expect(
            records["mirrored"] as? Int == 20 && records["needsUpload"] as? Int == 2
                && records["needsCloudDelete"] as? Int == 1)
        let changed = try #require(doc["changedSinceExport"] as? [String: Any])
        #expect(changed["count"] as? Int == 4)
        let objects = try #require(changed["objects"] as? [[String: Any]])
        #expect(
            objects.map { $0["changedObjectID"] as? String } == [
                "x-coredata://\(Scenarios.appGroupUUID)/Task/p14", "x-coredata://\(Scenarios.appGroupUUID)/Tag/p2",
            ])
        #expect((doc["recentEvents"] as? [[String: Any]])?.first?["succeeded"] as? Bool == false)
        let table = try CLI.run([
            "cloudkit", fixture + "/Tasks.sqlite", "--now", now, "--objects", "2", "--utc", "--format", "table",
        ]).stdout
        #expect(table.contains("Export position: #28 2025-03-04 17:30:00.000Z (export token) in ANSCKMETADATAENTRY"))
        #expect(
            table.contains(
                "Records:         20 mirrored, 2 await upload, 1 await deletion in iCloud, 1 in an export in flight"))
        #expect(table.contains("… and 2 more"))
        #expect(
            table.contains("export  2025-03-05 09:41:00.000Z   30s  failed (CKErrorDomain 3: networkUnavailable)"),
            "\(table)")
        // Not mirrored: one line, exit 0.
        let plain = try CLI.run(["cloudkit", Repository.fixtures + "/AppGroup/Tasks.sqlite", "--format", "table"])
        #expect(plain.status == 0)
        #expect(
            plain.stdout
                == """
                \(Repository.fixtures)/AppGroup/Tasks.sqlite: not mirrored with CloudKit (no ANSCK tables, no \
                mirroring keys in Z_METADATA)\n
                """
        )
        #expect(
            try CLI.run(["cloudkit", Repository.fixtures + "/AppGroup/Tasks.sqlite"]).json()["mirrored"] as? Bool
                == false)
    }

    @Test func timelineReportAndSessionShowTheExporter() throws {
        let timeline = try CLI.run(["timeline", fixture + "/Tasks.sqlite", "--now", now]).json()
        let markers = try #require(timeline["markers"] as? [[String: Any]])
        #expect(markers.contains { $0["name"] as? String == "CloudKit export" && $0["status"] as? String == "behind" })
        let out = try TemporaryDirectory()
        let report = try CLI.run([
            "report", fixture + "/Tasks.sqlite", "--now", now, "--utc", "--out", out.file("r.html"),
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let html = try String(contentsOfFile: out.file("r.html"), encoding: .utf8)
        #expect(html.contains("<h2>CloudKit mirroring</h2>"))
        #expect(
            html.contains(
                "behind at #28, 5 transactions to export; 20 mirrored records, 3 awaiting upload or deletion in iCloud")
        )
        let session = try CLI.run([
            fixture + "/Tasks.sqlite", "-c", "cloudkit --format json", "-c", "actors --format json",
        ])
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.lines.count == 2)
        #expect(
            session.lines[0].contains("\"kind\":\"cloudkit\"")
                && session.lines[1].contains("\"actor\":\"CloudKit export\""))
    }

    @Test func jsonTokensInFilesAndDefaults() throws {
        let store = fixture + "/Tasks.sqlite"
        let doc = try CLI.run(["actors", store, "--token", "app=" + fixture + "/swiftdata-token.json", "--now", now])
            .json()
        let app = try #require((doc["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "app" })
        #expect(app["tokenTransactionNumber"] as? Int == 31)
        #expect(app["status"] as? String == "behind")
        let token = try CLI.run(["token", fixture + "/swiftdata-token.json", "--store", store])
        #expect(token.status == 0)
        #expect(try token.json()["transactionNumber"] as? Int == 31)
        // JSON that is no token: a note with --verbose, never an error.
        let quiet = try CLI.run(["actors", store, "--defaults", fixture + "/swiftdata.plist", "--now", now])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        let verbose = try CLI.run([
            "actors", store, "--defaults", fixture + "/swiftdata.plist", "--now", now, "--verbose",
        ])
        #expect(
            verbose.stderr
                == """
                cdhist: note: \(fixture)/swiftdata.plist [filterSettings]: not a history token (JSON without a \
                store identifier mapped to a transaction number); ignored\n
                """
        )
        let dir = try TemporaryDirectory()
        try Data(#"{"theme":"dark"}"#.utf8).write(to: URL(fileURLWithPath: dir.file("settings.json")))
        let file = try CLI.run(["actors", store, "--token", dir.file("settings.json"), "--now", now])
        #expect(file.status == 0)
        #expect(file.stderr.contains("settings.json: not a history token"))
        // A foreign JSON token is foreign, as an archived one is.
        try Data(CloudKitFixtures.jsonToken(3, store: MergeStateFixtures.foreignUUID)).write(
            to: URL(fileURLWithPath: dir.file("foreign.json")))
        let foreign = try CLI.run(["actors", store, "--token", "app=" + dir.file("foreign.json"), "--now", now]).json()
        #expect(
            (foreign["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "app" }?["status"] as? String
                == "foreign-token")
    }
}

/// The shared Photos store given CloudKit's mirroring tables (the spec's DDL), its exporter behind.
@Suite(.enabled(if: RealStores.available)) struct RealStoreCloudKitTests {
    static let position: Int64 = 400

    /// A copy of Photos.sqlite with its WAL, mirrored: the exporter at #400, one record per object
    /// changed up to it, every fifth awaiting upload, every seventh a deletion in iCloud.
    static func mirroredCopy() throws -> (TemporaryDirectory, String, [MirroringFixture.Record]) {
        let dir = try TemporaryDirectory()
        try dir.copy(from: (RealStores.photos as NSString).deletingLastPathComponent, prefix: "Photos.sqlite")
        let path = dir.file("Photos.sqlite")
        let records = try MirroringWriter.mirror(
            path, storeUUID: RealStores.photosUUID, position: position, lastFetch: 665_000_000)
        return (dir, path, records)
    }

    @Test func theExporterOfAMirroredRealStore() throws {
        let (dir, path, records) = try Self.mirroredCopy()
        _ = dir
        // What it has to export: every transaction after #400 not written by CloudKit, as SQL counts them.
        let queue = try DatabaseQueue(path: path)
        let expected = try queue.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS
                    WHERE t.Z_PK > ? AND IFNULL(COALESCE(s.ZNAME, t.ZAUTHOR), '') NOT LIKE \
                    'NSCloudKitMirroringDelegate%'
                    """, arguments: [Self.position]) ?? -1
        }
        try queue.close()
        #expect(expected == 116)
        let actors = try CLI.run(["actors", path, "--token", RealStores.photosToken, "--format", "json"]).json()
        let e = try #require((actors["actors"] as? [[String: Any]])?.first { $0["kind"] as? String == "cloudkit" })
        #expect(e["status"] as? String == "behind")
        #expect(e["pendingCount"] as? Int == expected)
        #expect(e["mirroredRecords"] as? Int == records.count)

        let purge = try CLI.run(["purge", path, "--before", "tx:\(Self.position + 1)"]).json()
        let message = try #require((purge["consequences"] as? [[String: Any]])?.first?["message"] as? String)
        #expect(
            message
                == """
                CloudKit's export position (transaction #400) would be purged: on its next export the mirror \
                finds its token expired, resets (reason: history expired) and re-uploads every record \
                (\(records.count) mirrored records)
                """
        )

        // After deleting history past the position, check fails on it.
        let executed = try CLI.run([
            "purge", path, "--before", "tx:\(Self.position + 1)", "--execute", "--yes", "--no-backup", "--allow-expire",
        ])
        #expect(executed.status == 0, "\(executed.stderr)")
        let check = try CLI.run(["check", path])
        #expect(check.status == 1)
        let finding = try #require(
            (try check.json()["findings"] as? [[String: Any]])?.first { $0["rule"] as? String == "cloudkit-expired" })
        #expect(finding["severity"] as? String == "error")
    }

    /// `cdhist cloudkit`'s counts are sqlite3's counts of the same table.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func cloudkitCountsEqualSQLite() throws {
        let (dir, path, records) = try Self.mirroredCopy()
        _ = dir
        let sql = try CLI.run(
            [
                "-readonly", path,
                "SELECT COUNT(*), SUM(ZNEEDSUPLOAD <> 0), SUM(ZNEEDSCLOUDDELETE <> 0) FROM ANSCKRECORDMETADATA",
            ],
            executable: "/usr/bin/sqlite3")
        let counts = sql.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map { Int($0) }
        #expect(counts.count == 3)
        let doc = try CLI.run(["cloudkit", path]).json()
        let r = try #require(doc["records"] as? [String: Any])
        #expect([r["mirrored"] as? Int, r["needsUpload"] as? Int, r["needsCloudDelete"] as? Int] == counts)
        #expect(counts.first ?? 0 == records.count)
        let perEntity = try CLI.run(
            ["-readonly", path, "SELECT COUNT(*) FROM ANSCKRECORDMETADATA GROUP BY ZENTITYID ORDER BY ZENTITYID"],
            executable: "/usr/bin/sqlite3"
        ).stdout.split(separator: "\n").map { Int($0) }
        #expect((r["byEntity"] as? [[String: Any]])?.map { $0["mirrored"] as? Int } == perEntity)
        let table = try CLI.run(["cloudkit", path, "--format", "table"]).stdout
        #expect(
            table.contains(
                """
                Records:         \(counts[0] ?? -1) mirrored, \(counts[1] ?? -1) await upload, \(counts[2] ?? -1) \
                await deletion in iCloud
                """
            ))
    }
}
