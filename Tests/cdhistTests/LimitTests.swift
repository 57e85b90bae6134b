import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// Stores at the limits (``LimitStores``): every command reads them with
/// correct output, valid JSON and bounded memory.
@Suite(.tags(.slow)) struct LimitTests {
    private func run(_ args: [String], status: Int32 = 0, environment: [String: String] = [:]) throws -> CLI.Result {
        let r = try CLI.run(args, environment: environment)
        #expect(r.status == status, "\(args): \(r.status) \(r.stderr)")
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtrac"), "\(args): \(r.stderr)")
        return r
    }

    private func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// What JSON gives for a preserved value of attribute `i` (blobs as hex).
    private func expectedJSON(_ i: Int, pk: Int64) -> String {
        switch LimitStores.wideValue(i, pk: pk) {
        case .text(let s): return s
        case .integer(let n): return String(n)
        case .real(let d): return String(d)
        case .blob(let b): return "0x" + b.map { String(format: "%02x", $0) }.joined()
        }
    }

    private func describe(_ value: Any?) -> String {
        switch value {
        case let n as NSNumber: return n.stringValue
        case let s as String: return s
        default: return "\(value ?? "nil")"
        }
    }

    @Test func hundredTombstoneColumns() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file(LimitStores.wideTombstonesFile)
        try LimitStores.writeWideTombstones(to: store)
        let export = try lines(run(["export", store]).stdout)
        #expect(export.count == 3)
        let deletes = try #require(export.last?["changes"] as? [[String: Any]])
        #expect(deletes.count == 3)
        for (index, change) in deletes.enumerated() {
            let pk = Int64(index + 1)
            #expect(change["changeType"] as? String == "delete" && change["entityPK"] as? Int == Int(pk))
            let tombstone = try #require(change["tombstone"] as? [String: Any])
            #expect(tombstone.count == LimitStores.tombstoneCount)
            for i in 0..<LimitStores.tombstoneCount {
                #expect(
                    describe(tombstone[LimitStores.wideAttributeName(i)]) == expectedJSON(i, pk: pk), "a\(i) of p\(pk)")
            }
            #expect(change["warnings"] == nil)
        }
        let update = try #require((export[1]["changes"] as? [[String: Any]])?.first)
        #expect(update["updatedProperties"] as? [String] == ["a099", "note"])
        #expect(update["updatedSlots"] as? [Int] == [99, 100])

        let entity = try #require(
            (run(["entities", store, "--entity", "Wide"]).json()["entities"] as? [[String: Any]])?.first)
        #expect((entity["tombstoneAttributes"] as? [String])?.count == 100)
        #expect((entity["slots"] as? [Any])?.count == 101 && entity["columnsBytes"] as? Int == 13)
        // CSV carries the tombstone as one JSON field; tables show every value.
        let csv = try run(["export", store, "--format", "csv"]).lines
        #expect(csv.count == 1 + 3 + 1 + 3)
        let tombstoneField = try #require(csv.last?.components(separatedBy: ",\"{").last)
        let csvTombstone =
            try JSONSerialization.jsonObject(
                with: Data(("{" + tombstoneField.dropLast()).replacingOccurrences(of: "\"\"", with: "\"").utf8))
            as? [String: Any]
        #expect(csvTombstone?.count == 100 && describe(csvTombstone?["a099"]) == expectedJSON(99, pk: 3))
        let table = try run(["changes", store, "--type", "delete", "--format", "table"]).stdout
        #expect(table.contains("a000=\"v0-1\", a001=1001, a002=2.25, a003=0x0301"))
    }

    @Test func thousandEntities() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file(LimitStores.manyEntitiesFile)
        try LimitStores.writeManyEntities(to: store)
        let info = try run(["info", store, "--format", "table"]).stdout
        #expect(info.contains("Model:             Z_MODELCACHE (1000 entities)"))
        #expect(info.contains("Entities:          1000"))
        let entities = try #require(run(["entities", store]).json()["entities"] as? [[String: Any]])
        #expect(entities.count == 1000)
        func entity(_ name: String) throws -> [String: Any] {
            try #require(entities.first { $0["entity"] as? String == name })
        }
        // Core Data numbers roots in name order, each followed by its subentities.
        #expect(try entity("Entity0000")["entityNumber"] as? Int == 1)
        #expect(
            try entity("Entity0009")["entityNumber"] as? Int == 2
                && entity("Entity0009")["superentity"] as? String == "Entity0000")
        #expect(try entity("Entity0001")["entityNumber"] as? Int == 3)
        #expect(try entity("Entity0999")["entityNumber"] as? Int == 992)
        #expect(try entity("Entity0998")["entityNumber"] as? Int == 1000)
        #expect(try entity("Entity0999")["tombstoneAttributes"] as? [String] == ["key"])
        #expect(
            entities.allSatisfy {
                $0["inserts"] as? Int == 1 && $0["updates"] as? Int == 1 && $0["deletes"] as? Int == 1
            })

        let export = try lines(run(["export", store]).stdout)
        #expect(export.count == 10)
        let changes = export.flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        #expect(changes.count == 3000)
        #expect(changes.allSatisfy { $0["warnings"] == nil && $0["entity"] is String })
        let last = changes.filter { $0["entity"] as? String == "Entity0999" }
        #expect(last.map { $0["changeType"] as? String } == ["insert", "update", "delete"])
        #expect(last.allSatisfy { $0["entityNumber"] as? Int == 992 })
        #expect(
            last.first?["changedObjectID"] as? String
                == "x-coredata://A1D3E000-0000-4000-8000-000000001000/Entity0999/p1")
        #expect(last[1]["updatedProperties"] as? [String] == ["value"])
        #expect((last[2]["tombstone"] as? [String: Any])?["key"] as? String == "Entity0999-1")
        let filtered = try run(["changes", store, "--entity", "Entity0000", "--include-subentities"]).json()
        #expect((filtered["changes"] as? [[String: Any]])?.count == 6)
    }

    @Test func tenMegabyteAuthor() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file(LimitStores.longAuthorFile)
        try LimitStores.writeLongAuthor(to: store)
        let author = LimitStores.longAuthor
        #expect(author.utf8.count == LimitStores.longAuthorLength && author.hasSuffix("#END"))
        // Memory grows with the longest value, not with the rows: a few copies of it (about 87 MiB
        // measured for transactions and export); authors about 190 MiB, as SQLite's GROUP BY and
        // ORDER BY sorters keep copies of every distinct value.
        if PeakMemory.available {
            for (command, bound) in [("transactions", 128), ("export", 128), ("authors", 256)] {
                let peak = try PeakMemory.run([command, store], stdout: dir.file("\(command).out"))
                #expect(
                    peak.status == 0 && peak.peakBytes > 0 && peak.peakBytes < Int64(bound) << 20,
                    "\(command): \(peak.peakBytes >> 20) MiB \(peak.stderr)")
            }
        }

        // JSON, NDJSON and CSV carry the whole value.
        let txs = try #require(run(["transactions", store]).json()["transactions"] as? [[String: Any]])
        #expect(txs.map { $0["author"] as? String } == [author, "app", author])
        let export = try run(["export", store])
        #expect(try lines(export.stdout).map { $0["author"] as? String } == [author, "app", author])
        let csv = try run(["export", store, "--format", "csv"]).lines
        #expect(csv.count == 4 && csv[1].contains(",\(author),viewContext,"))
        let summaries = try #require(run(["authors", store, "--by", "author"]).json()["authors"] as? [[String: Any]])
        #expect(summaries.first?["value"] as? String == author && summaries.first?["transactionCount"] as? Int == 2)

        // Tables cut it at 1,000 characters (a cell or a field) when not fitting a terminal.
        let table = try run(["authors", store, "--by", "author", "--format", "table"]).lines
        #expect(table.count == 4)
        #expect(
            table[2].hasPrefix("author:0123456789") && table[2].contains("…") && table[2].count < 1100,
            "\(table[2].prefix(300))")
        let listed = try run(["transactions", store, "--format", "table"]).lines
        #expect(listed.count == 4 && listed.allSatisfy { $0.count < 1200 })
        // Fitted to a terminal it wraps instead: every line fits, and the rows of the last line hold the rest.
        let wrapped = try CLI.run(
            ["authors", store, "--by", "author", "--format", "table"], environment: ["COLUMNS": "80"]
        ).lines
        #expect(wrapped.allSatisfy { $0.count <= 80 })
        #expect(wrapped.count > 12)
        let shown = try run(["show", store, "1", "--format", "table"]).lines
        let field = try #require(shown.first { $0.hasPrefix("Author:") })
        #expect(field == "Author:      " + author.prefix(999) + "…")
        _ = try run(["info", store])
    }

    @Test func millionChangesInOneTransaction() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file(LimitStores.largeTransactionFile)
        let n = 1_000_000
        try LimitStores.writeLargeTransaction(to: store, changes: n)
        let info = try run(["info", store]).json()
        #expect(info["changeCount"] as? Int == n + 1)
        let listed = try #require(run(["transactions", store]).json()["transactions"] as? [[String: Any]])
        #expect(listed.last?["changeCount"] as? Int == n)

        // export streams the transaction's changes: memory stays far below what a million decoded changes take.
        let out = dir.file("export.ndjson")
        if PeakMemory.available {
            let peak = try PeakMemory.run(["export", store], stdout: out)
            #expect(peak.status == 0 && peak.stderr.isEmpty, "\(peak.stderr)")
            // Holding the decoded changes took 1.1 GiB; streamed, the export stays near its idle size.
            #expect(peak.peakBytes > 0 && peak.peakBytes < 96 << 20, "export used \(peak.peakBytes >> 20) MiB")
        } else {
            _ = try run(["export", store, "--out", out])
        }
        let scan = try NDJSONScan(path: out)
        #expect(scan.lines == 2)
        #expect(scan.changeIDs == n + 1)
        #expect(scan.deletes == n / 3)
        #expect(scan.lastLineStart.hasPrefix("{\"format\":\"cdhist/1\",\"transactionNumber\":2,"))
        #expect(scan.lastLineStart.contains("\"changeCount\":\(n),"))
        // Change n + 1 is the n-th of the transaction: n % 3 == 1, an update of Task n.
        #expect(
            scan.lastLineEnd.hasSuffix(
                """
                \"changeID\":\(n + 1),\"transactionNumber\":2,\"changeType\":\"update\",\"entity\":\"Task\",\"entityNumber\":7,\"entityPK\":\(n),\"changedObjectID\":\"x-coredata://A1D3E000-0000-4000-8000-000000100000/Task/p\(n)\",\"updatedProperties\":[\"done\"],\"updatedSlots\":[4],\"tombstone\":null}]}
                """
            ), "\(scan.lastLineEnd)")
    }

    @Test func timestampsAtAndPastTheEndsOfTime() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file(LimitStores.edgeTimestampsFile)
        try LimitStores.writeEdgeTimestamps(to: store)
        // NaN cannot be stored: SQLite keeps NULL.
        let queue = try DatabaseQueue(
            path: "file:\(store)?immutable=1",
            configuration: {
                var c = Configuration()
                c.readonly = true
                return c
            }())
        #expect(
            try queue.read {
                try String.fetchOne($0, sql: "SELECT typeof(ZTIMESTAMP) FROM ATRANSACTION WHERE Z_PK = 8")
            } == "null")
        try queue.close()

        let r = try run(["transactions", store])
        let txs = try #require(r.json()["transactions"] as? [[String: Any]])
        #expect(txs.count == LimitStores.edgeTimestamps.count)
        let expected: [(iso: String?, cocoa: String?, warning: String?)] = [
            ("2001-01-01T00:00:00.000Z", "0", nil),
            ("2000-12-31T23:59:59.000Z", "-1", nil),
            ("1970-01-01T00:00:00.000Z", "-978307200", nil),
            ("0001-01-01T00:00:00.000Z", "-63113904000", nil),
            (
                nil, "-100000000000",
                "ATRANSACTION Z_PK 5: ZTIMESTAMP -100000000000.0 s lies outside the years 1–9999; no date expresses it"
            ),
            ("9999-12-31T23:59:59.999Z", "252423993599.999", nil),
            (
                nil, "1000000000000",
                "ATRANSACTION Z_PK 7: ZTIMESTAMP 1000000000000.0 s lies outside the years 1–9999; no date expresses it"
            ),
            (nil, nil, nil),
            (nil, nil, "ATRANSACTION Z_PK 9: ZTIMESTAMP is +infinity; no date expresses it"),
            (nil, nil, "ATRANSACTION Z_PK 10: ZTIMESTAMP is -infinity; no date expresses it"),
            (
                nil, "-1e+300",
                "ATRANSACTION Z_PK 11: ZTIMESTAMP -1e+300 s lies outside the years 1–9999; no date expresses it"
            ),
            ("2025-03-03T09:00:00.000Z", "762685200", nil),
        ]
        for (tx, want) in zip(txs, expected) {
            let number = tx["transactionNumber"] as? Int ?? 0
            #expect(tx["timestamp"] as? String == want.iso, "#\(number)")
            #expect((tx["cocoaTimestamp"] as? NSNumber)?.doubleValue == want.cocoa.flatMap(Double.init), "#\(number)")
            let warnings = (tx["warnings"] as? [[String: Any]])?.compactMap { $0["message"] as? String }
            #expect(warnings == want.warning.map { [$0] }, "#\(number)")
            if want.warning != nil {
                #expect((tx["warnings"] as? [[String: Any]])?.first?["kind"] as? String == "timestampOutOfRange")
            }
        }
        #expect(r.stderr.hasPrefix("cdhist: warning: \(store): 5 values not as Core Data writes them: "))

        // Tables show what no date expresses as the stored seconds.
        let table = try run(["transactions", store, "--format", "table", "--utc"]).lines.dropFirst().map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        let times = table.map { $0.count > 2 ? "\($0[1]) \($0[2])" : "" }
        #expect(
            times == [
                "2001-01-01 00:00:00.000Z", "2000-12-31 23:59:59.000Z", "1970-01-01 00:00:00.000Z",
                "0001-01-01 00:00:00.000Z",
                "-100000000000.0 s", "9999-12-31 23:59:59.999Z", "1000000000000.0 s", "- t8", "inf s", "-inf s",
                "-1e+300 s",
                "2025-03-03 09:00:00.000Z",
            ])
        // CSV: empty where JSON has null.
        let csv = try run(["export", store, "--format", "csv"]).lines.dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).prefix(3).joined(separator: ",")
        }
        #expect(
            csv == [
                "1,2001-01-01T00:00:00.000Z,0", "2,2000-12-31T23:59:59.000Z,-1",
                "3,1970-01-01T00:00:00.000Z,-978307200",
                "4,0001-01-01T00:00:00.000Z,-63113904000", "5,,-100000000000",
                "6,9999-12-31T23:59:59.999Z,252423993599.999",
                "7,,1000000000000", "8,,", "9,,", "10,,", "11,,-1e+300", "12,2025-03-03T09:00:00.000Z,762685200",
            ])

        // The time range of info goes from -infinity to +infinity: shown as seconds, null in JSON.
        let info = try run(["info", store]).json()
        #expect(
            info["firstTimestamp"] is NSNull && info["firstCocoaTimestamp"] is NSNull
                && info["lastCocoaTimestamp"] is NSNull)
        let infoTable = try run(["info", store, "--format", "table"]).stdout
        #expect(infoTable.contains("First:             -inf s") && infoTable.contains("Last:              inf s"))
        // Date filters and purges compare as SQLite does: -infinity is before every date.
        let purge = try run(["purge", store, "--before", "2001-01-01T00:00:00Z"]).json()
        #expect(purge["transactionCount"] as? Int == 6)
        // Merge state and health rules age transactions against now: no age overflows.
        let plist = dir.file("defaults.plist")
        try Data(PropertyList.encodeBinary(.dictionary(["PersistentHistoryTrackingKit.lastToken.t1": .date(0)]))).write(
            to: URL(fileURLWithPath: plist))
        for format in ["json", "table"] {
            _ = try run(["actors", store, "--defaults", plist, "--actor", "t1", "--format", format])
            let check = try CLI.run(["check", store, "--defaults", plist, "--actor", "t1", "--format", format])
            #expect(check.status == 0 || check.status == 1, "\(check.stderr)")
        }
        let aged = try CLI.run(["check", store, "--rule", "history-old"]).json()
        let message = (aged["findings"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.contains("the oldest transaction is infinitely many days old"), "\(message)")
    }

    /// Thousands of deletions of entities with long names: a table counts them per entity first,
    /// then lists the first rows of each entity (every one with --all, at most n with --limit in
    /// every format), says once that an entity keeps no tombstone values, and never breaks a name
    /// or a quoted value.
    @Test func deletedSummarisesThousandsOfDeletionsPerEntity() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file(LimitStores.manyDeletionsFile)
        try LimitStores.writeManyDeletions(to: store)
        let (titled, untitled, unrecorded) = (
            LimitStores.titledEntity, LimitStores.untitledEntity, LimitStores.unrecordedEntity
        )
        let total =
            LimitStores.titledDeletions + LimitStores.untitledDeletions + LimitStores.unrecordedDeletions
            + LimitStores.goneWithoutDelete
        let table = try run(["deleted", store, "--format", "table"], environment: ["COLUMNS": "80"]).stdout.split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        #expect(
            Array(table.prefix(8)) == [
                "7500 objects deleted in 3 entities; 40 objects of 1 entity gone without a",
                "recorded delete.",
                "",
                "Entity                              Deleted  Tombstone values  Deleted by  Gone",
                "\(untitled)     4200  none kept         #34…#75        0",
                "\(unrecorded)          300  all               #76…#78       40",
                "\(titled)          3000  all               #4…#33         0",
                "",
            ])
        #expect(table.allSatisfy { $0.count <= 80 })
        // Ten rows of each entity and kind: an entity's name starts each row, whole.
        let rows = table.dropFirst(8).filter { line in
            [titled, untitled, unrecorded].contains { line.hasPrefix($0 + " ") }
        }
        #expect(rows.count == 40)
        #expect(!table.contains { $0.contains("no tombstone values") })
        #expect(table.filter { $0.contains("none kept") }.count == 1)
        #expect(rows.filter { $0.hasPrefix(untitled + " ") }.allSatisfy { $0.hasSuffix("cleaner  -") })
        // A title wider than its column goes under its row, whole where a line holds it (a label
        // is cut past 60 characters, as every label is: object 10's; its tombstone has it whole).
        for pk in 1...9 {
            let label = "Label: '\(LimitStores.deletedTitle(Int64(pk)))';"
            #expect(table.contains { $0.trimmingCharacters(in: .whitespaces) == label }, "\(label)")
        }
        #expect(
            table.suffix(4) == [
                "Shown: 40 of \(total) objects (the first 10 of each entity, deleted and gone): --all",
                "lists every one, --entity NAME one entity's, --format json each with its",
                "tombstone.", "",
            ])

        let all = try run(["deleted", store, "--format", "table", "--all"], environment: ["COLUMNS": "80"]).lines
        #expect(
            all.filter { line in [titled, untitled, unrecorded].contains { line.hasPrefix($0 + " ") } }.count == total
                + 3)
        #expect(!all.contains { $0.hasPrefix("Shown:") })

        // JSON, NDJSON and CSV list every object; --limit caps every format; JSON counts them all.
        #expect(try run(["deleted", store, "--format", "ndjson"]).lines.count == total)
        #expect(try run(["deleted", store, "--format", "csv", "--limit", "7"]).lines.count == 8)
        let json = try run(["deleted", store, "--format", "json", "--limit", "5"]).json()
        #expect((json["deleted"] as? [[String: Any]])?.count == 5)
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.map { $0["entity"] as? String ?? "" } == [untitled, unrecorded, titled])
        #expect(
            entities.map {
                [$0["deleted"], $0["withTombstoneValues"], $0["goneWithoutDelete"]].map { $0 as? Int ?? -1 }
            }
                == [
                    [LimitStores.untitledDeletions, 0, 0],
                    [LimitStores.unrecordedDeletions, LimitStores.unrecordedDeletions, LimitStores.goneWithoutDelete],
                    [LimitStores.titledDeletions, LimitStores.titledDeletions, 0],
                ])
        #expect(
            entities.map { [$0["firstDeleteTransaction"], $0["lastDeleteTransaction"]].map { $0 as? Int ?? -1 } } == [
                [34, 75], [76, 78], [4, 33],
            ])
        let narrowed = try run(
            ["deleted", store, "--entity", titled, "--limit", "2", "--format", "table"], environment: ["COLUMNS": "60"]
        ).lines
        #expect(narrowed.first == "3000 objects deleted in 1 entity.")
        #expect(narrowed.last == "tombstone.")
    }
}

/// Counts in a large export through the shell's tools (the file is hundreds
/// of megabytes: grep and wc read it faster than a debug build of a test).
private struct NDJSONScan {
    var lines = 0
    var changeIDs = 0
    var deletes = 0
    var lastLineStart = ""
    var lastLineEnd = ""

    init(path: String) throws {
        func shell(_ command: String) throws -> String {
            let r = try CLI.run(["-c", command, "sh", path], executable: "/bin/sh")
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        lines = Int(try shell("wc -l < \"$1\"")) ?? -1
        changeIDs = Int(try shell("grep -o '\"changeID\":' \"$1\" | wc -l")) ?? -1
        deletes = Int(try shell("grep -o '\"changeType\":\"delete\"' \"$1\" | wc -l")) ?? -1
        lastLineStart = try shell("tail -n 1 \"$1\" | head -c 400")
        lastLineEnd = try shell("tail -c 300 \"$1\"")
    }
}
