import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

/// Values of another SQLite type than Core Data writes (text in ZTIMESTAMP, a
/// blob as an author, text in ZENTITY…) used to trap inside GRDB's row
/// decoding (exit 132). Every command now reads them: optional values as
/// null and numbers as SQLite converts them, each reported where it is seen.
@Suite struct WrongTypeTests {
    let fixture = Repository.fixtures + "/MergeState"

    /// A copy of the MergeState store with `sql` applied.
    private func damaged(_ sql: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("Tasks.sqlite")
        try FileManager.default.copyItem(atPath: fixture + "/Tasks.sqlite", toPath: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
        return path
    }

    /// Runs `args`; expects `status` and no trap.
    private func run(_ args: [String], status: Int32 = 0) throws -> CLI.Result {
        let r = try CLI.run(args)
        #expect(r.status == status, "\(args): \(r.status) \(r.stderr)")
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtrac"), "\(args): \(r.stderr)")
        return r
    }

    private func lines(_ r: CLI.Result) throws -> [[String: Any]] {
        try r.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// Every command of the tool on `store`: none traps or fails.
    private func everyCommandSucceeds(_ store: String) throws {
        for args in [
            ["info", store], ["info", store, "--change-types"], ["transactions", store], ["changes", store],
            ["show", store, "3"], ["entities", store], ["authors", store], ["export", store],
            ["export", store, "--format", "csv"],
            ["purge", store, "--before", "tx:10"], ["purge", store, "--before", "2025-03-04", "--breakdown"],
            ["actors", store, "--defaults", fixture + "/phtk.plist"],
            ["token", fixture + "/token.data", "--store", store],
            ["transactions", store, "--format", "table"], ["changes", store, "--format", "table"],
        ] {
            _ = try run(args)
        }
        let check = try CLI.run(["check", store])
        #expect(check.status == 0 || check.status == 1, "check: \(check.status) \(check.stderr)")
    }

    @Test func textTimestamp() throws {
        let dir = try TemporaryDirectory()
        let store = try damaged("UPDATE ATRANSACTION SET ZTIMESTAMP = 'yesterday' WHERE Z_PK = 3", in: dir)
        try everyCommandSucceeds(store)
        let message = "ATRANSACTION Z_PK 3: ZTIMESTAMP holds TEXT \"yesterday\", not a number; read as null"

        // info counts it and keeps it out of the time range (TEXT sorts after every number).
        let info = try run(["info", store]).json()
        #expect(info["unreadableTimestampCount"] as? Int == 1)
        #expect(info["transactionCount"] as? Int == 34)
        #expect(info["firstTimestamp"] as? String == "2025-03-03T09:00:00.000Z")
        #expect(info["lastTimestamp"] as? String == "2025-03-05T09:50:00.000Z")
        let table = try run(["info", store, "--format", "table", "--utc"]).stdout
        #expect(
            table.contains(
                """
                Odd timestamps:    1 transaction has a ZTIMESTAMP that is text or a blob, not a number (left out \
                of First and Last)
                """
            ))
        #expect(table.contains("Last:              2025-03-05 09:50:00.000Z"))

        // export says what it read: null, with the reason in warnings and once on stderr.
        let export = try run(["export", store])
        let txs = try lines(export)
        #expect(txs.count == 34)
        let third = txs[2]
        #expect(third["transactionNumber"] as? Int == 3)
        #expect(third["timestamp"] is NSNull && third["cocoaTimestamp"] is NSNull)
        let warnings = try #require(third["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1)
        #expect(warnings.first?["kind"] as? String == "wrongType")
        #expect(warnings.first?["message"] as? String == message)
        #expect(txs.filter { $0["warnings"] != nil }.count == 1)
        #expect(export.stderr == "cdhist: warning: \(store): 1 value not as Core Data writes it: \(message)\n")
        let csv = try run(["export", store, "--format", "csv"]).lines
        #expect(csv.contains { $0.hasPrefix("3,,,NSCloudKitMirroringDelegate.export,") })
        let listed = try run(["transactions", store, "--format", "table", "--utc", "--limit", "3"]).lines
        #expect(listed.last?.trimmingCharacters(in: .whitespaces).hasPrefix("3  -  ") == true, "\(listed)")

        // The author's time range leaves it out; #5 is the export delegate's next transaction.
        let authors = try run(["authors", store, "--by", "author"]).json()
        let export5 = try #require(
            (authors["authors"] as? [[String: Any]])?.first {
                $0["value"] as? String == "NSCloudKitMirroringDelegate.export"
            })
        #expect(export5["transactionCount"] as? Int == 4)
        #expect(export5["firstTimestamp"] as? String == "2025-03-03T09:11:00.000Z")

        // Date filters follow SQLite (and so Core Data): TEXT is after every date, before none.
        let history = Scenarios.appGroupHistory()
        let cutoff = Scenarios.baseTime + 86400  // 2025-03-04T09:00:00Z
        let before = try run(["purge", store, "--before", "2025-03-04T09:00:00Z"]).json()
        #expect(
            before["transactionCount"] as? Int
                == history.enumerated().filter { $0.offset != 2 && $0.element.timestamp < cutoff }.count)
        let after = try run(["transactions", store, "--after", "2025-03-05T09:45:00Z"]).json()
        #expect((after["transactions"] as? [[String: Any]])?.compactMap { $0["transactionNumber"] as? Int } == [3, 34])
        // …so an actor merging by date still has #3 to merge, as Core Data would hand it out.
        let actors = try run(["actors", store, "--defaults", fixture + "/phtk.plist", "--actor", "widget"]).json()
        let widget = try #require((actors["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "widget" })
        let clean = try run([
            "actors", fixture + "/Tasks.sqlite", "--defaults", fixture + "/phtk.plist", "--actor", "widget",
        ]).json()
        let cleanWidget = try #require(
            (clean["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "widget" })
        #expect(widget["pendingCount"] as? Int == (cleanWidget["pendingCount"] as? Int).map { $0 + 1 })

        // check finds it through the timestamp index.
        let check = try run(["check", store, "--rule", "wrong-type", "--fail-on", "warning"], status: 1).json()
        let finding = try #require((check["findings"] as? [[String: Any]])?.first)
        #expect(finding["rule"] as? String == "wrong-type")
        #expect((finding["data"] as? [String: Any])?["ATRANSACTION.ZTIMESTAMP"] as? Int == 1)
        _ = try run(["check", fixture + "/Tasks.sqlite", "--rule", "wrong-type", "--fail-on", "info"])
    }

    @Test func blobTimestampAndAuthor() throws {
        let dir = try TemporaryDirectory()
        let store = try damaged(
            """
            UPDATE ATRANSACTION SET ZTIMESTAMP = x'0102' WHERE Z_PK = 4;
            UPDATE ATRANSACTION SET ZAUTHORTS = NULL, ZAUTHOR = x'00ff' WHERE Z_PK = 6;
            UPDATE ATRANSACTION SET ZCONTEXTNAMETS = 1.5 WHERE Z_PK = 7;
            """, in: dir)
        try everyCommandSucceeds(store)
        let r = try run(["transactions", store])
        let txs = try #require(r.json()["transactions"] as? [[String: Any]])
        func warning(_ n: Int) -> String? {
            ((txs[n - 1]["warnings"] as? [[String: Any]])?.first?["message"] as? String)
        }
        #expect(txs[3]["timestamp"] is NSNull)
        #expect(
            warning(4) == "ATRANSACTION Z_PK 4: ZTIMESTAMP holds BLOB of 2 bytes (0102), not a number; read as null")
        #expect(txs[5]["author"] is NSNull)
        #expect(warning(6) == "ATRANSACTION Z_PK 6: the author holds BLOB of 2 bytes (00ff), not text; read as null")
        #expect(txs[6]["contextName"] is NSNull && txs[6]["author"] as? String == "widget")
        #expect(
            warning(7)
                == """
                ATRANSACTION Z_PK 7: ZCONTEXTNAMETS holds REAL 1.5, not an integer (a string reference); read as \
                null
                """
        )
        #expect(
            r.stderr.hasPrefix(
                "cdhist: warning: \(store): 3 values not as Core Data writes them: ATRANSACTION Z_PK 4: "))
        // authors agrees with transactions: the blob is no author.
        let authors = try run(["authors", store, "--by", "author"]).json()
        let none = try #require((authors["authors"] as? [[String: Any]])?.first { $0["value"] is NSNull })
        #expect(none["transactionCount"] as? Int == 2)
    }

    /// A string-table name that is a BLOB, on transactions that also carry an inline
    /// author: the readers' join yields the BLOB (no author); the one-pass scan of
    /// actors and the purge preview used to fall back to the inline name, so their
    /// counts by author disagreed with `authors` (found by review).
    @Test func blobStringNameBesideAnInlineAuthor() throws {
        let dir = try TemporaryDirectory()
        let store = try damaged(
            """
            UPDATE ATRANSACTION SET ZAUTHOR = 'inline' WHERE ZAUTHORTS = (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE \
            ZNAME = 'widget');
            UPDATE ATRANSACTIONSTRING SET ZNAME = CAST('widget' AS BLOB) WHERE ZNAME = 'widget';
            """, in: dir)
        let authors = try #require(try run(["authors", store, "--by", "author"]).json()["authors"] as? [[String: Any]])
        let none = try #require(authors.first { $0["value"] is NSNull })
        #expect(none["transactionCount"] as? Int == 8)
        #expect(!authors.contains { $0["value"] as? String == "inline" })
        let preview = try run(["purge", store, "--before", "tx:35", "--format", "json"]).json()
        let byAuthor = try #require(preview["byAuthor"] as? [[String: Any]])
        #expect(byAuthor.first { $0["author"] is NSNull }?["transactions"] as? Int == 8)
        #expect(!byAuthor.contains { $0["author"] as? String == "inline" })
    }

    @Test func changeColumnsOfTheWrongType() throws {
        let dir = try TemporaryDirectory()
        let store = try damaged(
            """
            UPDATE ACHANGE SET ZENTITY = 'Task' WHERE Z_PK = 3;
            UPDATE ACHANGE SET ZCHANGETYPE = 'update' WHERE Z_PK = 4;
            UPDATE ACHANGE SET ZENTITYPK = 'one' WHERE Z_PK = 5;
            UPDATE ACHANGE SET ZCOLUMNS = 12 WHERE Z_PK = 3;
            UPDATE ACHANGE SET ZTRANSACTIONID = 'three' WHERE Z_PK = 6;
            """, in: dir)
        try everyCommandSucceeds(store)
        let r = try run(["changes", store, "--format", "ndjson"])
        let changes = try lines(r)
        func change(_ id: Int) throws -> [String: Any] { try #require(changes.first { $0["changeID"] as? Int == id }) }
        func messages(_ id: Int) throws -> [String] {
            (try change(id)["warnings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        }
        // Change 3 (an update of Project 1 in the fixture): no entity, no bitmap.
        #expect(
            try change(3)["entity"] is NSNull && change(3)["entityNumber"] as? Int == 0
                && change(3)["changedObjectID"] is NSNull)
        #expect(
            try messages(3) == [
                "ACHANGE Z_PK 3: ZENTITY holds TEXT \"Task\", not an integer; read as 0",
                "ACHANGE Z_PK 3: ZCOLUMNS holds INTEGER 12, not a BLOB; read as null",
            ])
        // Change 4: never SQLite's 0 (an insert) for text.
        #expect(try change(4)["changeType"] as? String == "unknown(-1)")
        #expect(
            try messages(4) == [
                "ACHANGE Z_PK 4: ZCHANGETYPE holds TEXT \"update\", not an integer; read as unknown(-1)"
            ])
        #expect(try change(5)["entityPK"] as? Int == 0 && change(5)["changedObjectID"] is NSNull)
        #expect(try messages(5) == ["ACHANGE Z_PK 5: ZENTITYPK holds TEXT \"one\", not an integer; read as 0"])
        #expect(try change(6)["transactionNumber"] as? Int == 0)
        #expect(try messages(6) == ["ACHANGE Z_PK 6: ZTRANSACTIONID holds TEXT \"three\", not an integer; read as 0"])
        #expect(r.stderr.hasPrefix("cdhist: warning: \(store): 5 values not as Core Data writes them: "))

        // The change with a text transaction ID belongs to no transaction.
        let info = try run(["info", store, "--change-types", "--format", "table"]).stdout
        #expect(info.contains("Orphan changes:    1 (no transaction)"))
        #expect(info.contains("1 of no known type)"))
        let entities = try run(["entities", store, "--format", "table"]).stdout
        #expect(entities.contains("note: 1 change has a ZENTITY that is not an integer (NULL, text, a real or a blob)"))
        let check = try run(["check", store, "--fail-on", "warning"], status: 1).json()
        let rules = (check["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect(rules.contains("wrong-type") && rules.contains("unknown-entity") && rules.contains("orphan-changes"))
    }

    @Test func bookkeepingTablesOfTheWrongType() throws {
        let dir = try TemporaryDirectory()
        let store = try damaged(
            """
            UPDATE Z_PRIMARYKEY SET Z_MAX = 'many' WHERE Z_NAME = 'TRANSACTION';
            UPDATE Z_PRIMARYKEY SET Z_SUPER = 'p' WHERE Z_NAME = 'Photo';
            UPDATE Z_METADATA SET Z_PLIST = 3;
            UPDATE Z_MODELCACHE SET Z_CONTENT = 'hello';
            """, in: dir)
        try everyCommandSucceeds(store)
        let r = try run(["info", store, "--format", "table"])
        #expect(r.stdout.contains("Metadata:          Z_PLIST holds INTEGER 3, not a property list"))
        #expect(
            r.stdout.contains(
                """
                Model:             none (\(store): Z_MODELCACHE holds TEXT \"hello\", not a compressed model; \
                give a model with --model)
                """
            ))
        #expect(
            r.stderr == """
                cdhist: note: \(store): Z_PRIMARYKEY Z_ENT 3 (Photo): Z_SUPER holds TEXT "p", not an integer; read as 0
                cdhist: note: \(store): Z_PRIMARYKEY Z_ENT 16002 (TRANSACTION): Z_MAX holds TEXT "many", not an \
                integer; read as 0

                """)
        let entities = try run(["entities", store]).json()
        let photo = try #require(
            (entities["entities"] as? [[String: Any]])?.first { $0["entity"] as? String == "Photo" })
        #expect(photo["superentity"] is NSNull)
    }
}
