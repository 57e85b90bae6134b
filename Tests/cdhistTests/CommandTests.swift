import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

@Suite(.tags(.slow), .serialized) struct CommandTests {
    let appGroup = Repository.fixtures + "/AppGroup/Tasks.sqlite"

    /// A command's CSV is one table: several sections share it under a first column naming
    /// each row's section; no second header, no blank line.
    @Test func csvIsOneTable() throws {
        let store = Repository.fixtures + "/MergeState/Tasks.sqlite"
        let authors = try CLI.run(["authors", store, "--format", "csv"]).lines
        // The export's dialect: the JSON's names, ISO 8601 UTC times, numbers whole, empty for null.
        #expect(
            authors.first
                == """
                section,field,value,transactionCount,changeCount,firstTimestamp,lastTimestamp,firstTransactionNumber,lastTransactionNumber
                """
        )
        #expect(
            Set(authors.dropFirst().map { String($0.prefix { $0 != "," }) }) == [
                "authors", "contextNames", "bundleIDs", "processIDs",
            ])
        #expect(authors.contains("authors,,widget,7,7,2025-03-03T10:15:00.000Z,2025-03-05T09:30:00.000Z,7,31"))
        #expect(authors.contains { $0.hasPrefix("authors,,,1,1,") }, "the transaction without an author: an empty cell")
        for command in [
            ["actors", store, "--defaults", Repository.fixtures + "/MergeState/phtk.plist"],
            ["purge", store, "--before", "tx:20", "--breakdown"],
            ["check", store], ["authors", store],
        ] {
            let r = try CLI.run(command + ["--format", "csv"])
            #expect(r.status == 0 || r.status == 1, "\(command): \(r.stderr)")
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(!lines.contains(""), "\(command[0]): a blank line")
            #expect(lines.filter { $0.hasPrefix("section,") }.count == 1, "\(command[0]): \(lines.prefix(3))")
        }
        // A change row carries its transaction's time and names, as export's rows do: the same cells.
        let changes = try CLI.run(["changes", store, "--format", "csv"]).lines
        #expect(
            changes.first?.hasPrefix(
                """
                transactionNumber,timestamp,cocoaTimestamp,author,contextName,bundleID,processID,changeID,changeType,entity,
                """
            ) == true)
        let exported = try CLI.run(["export", store, "--format", "csv"]).lines.filter { !$0.contains(",,,,,,,") }
        func key(_ line: String) -> String {
            line.split(separator: ",", omittingEmptySubsequences: false).prefix(9).joined(separator: ",")
        }
        #expect(changes.dropFirst().map(key) == exported.dropFirst().map(key))
        // An object's page: its fields, then its changes with their transactions' times and names.
        let object = try CLI.run([
            "object", Repository.fixtures + "/AppGroup/Tasks.sqlite", "Task/p3", "--format", "csv",
        ]).lines
        #expect(object.first?.hasPrefix("section,field,value,transactionNumber,timestamp,") == true)
        #expect(
            object.contains(
                ",entityPK,3" + String(repeating: ",", count: (object.first?.filter { $0 == "," }.count ?? 2) - 2)))
        #expect(
            object.filter { $0.hasPrefix("changes,,,") }.map { String($0.dropFirst(10).prefix { $0 != "," }) } == [
                "4", "8", "17",
            ])
        // Members holding a value are fields (a nested object's named with dots); without a list, field,value alone.
        let info = try CLI.run(["info", store, "--format", "csv"]).lines
        #expect(info.contains(",files.main,81920,,,") && info.contains(",transactionCount,34,,,"), "\(info)")
        #expect(
            try CLI.run(["token", Repository.fixtures + "/MergeState/token.data", "--format", "csv"]).lines.first
                == "section,field,value,key,actor,token")
        // A column title a section has twice keeps both columns: an author named "-" beside the lane of no author.
        let dir = try TemporaryDirectory()
        var fixture = Scenarios.all[0].store
        fixture.journalMode = .rollback
        fixture.transactions[0].author = "-"
        fixture.transactions[1].author = nil
        try StoreWriter.write(fixture, to: dir.file("Dash.sqlite"))
        let timeline = try CLI.run(["timeline", dir.file("Dash.sqlite"), "--format", "csv", "--width", "40"]).lines
        let header = try #require(timeline.first).split(separator: ",", omittingEmptySubsequences: false)
        #expect(header.filter { $0 == "-" }.count == 2, "\(header)")
        let cells = timeline.dropFirst().filter { $0.hasPrefix("Transactions per bucket,") }
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).dropFirst(2).compactMap { Int($0) } }
        #expect(cells.reduce(0, +) == fixture.transactions.count)
    }

    /// A missing author is written `-` in every table, and the filters take it back (with `none`
    /// and the timeline's `(no author)`): each selects exactly the transactions without one.
    @Test func aMissingAuthorIsWrittenAndFilteredOneWay() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        let all = try #require(try CLI.run(["transactions", store]).json()["transactions"] as? [[String: Any]])
        let anonymous = all.filter { $0["author"] is NSNull }.compactMap { $0["transactionNumber"] as? Int }
        #expect(anonymous == [13])
        for spelling in ["-", "none", "(no author)"] {
            let picked = try #require(
                try CLI.run(["transactions", store, "--author", spelling]).json()["transactions"] as? [[String: Any]])
            #expect(picked.compactMap { $0["transactionNumber"] as? Int } == anonymous, "\(spelling)")
        }
        let table = try CLI.run(["transactions", store, "--format", "table"], environment: ["COLUMNS": "120"]).lines
        #expect(table.contains { $0.hasPrefix("13 ") && $0.contains(" -  ") }, "\(table)")
        let authors = try CLI.run(
            ["authors", store, "--by", "author", "--format", "table"], environment: ["COLUMNS": "120"]
        ).lines
        #expect(authors.contains { $0.hasPrefix("- ") && $0.contains("#13…#13") }, "\(authors)")
    }

    @Test func infoOnFixtures() throws {
        let r = try CLI.run(["info", appGroup])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
        let info = try r.json()
        #expect(info["format"] as? String == "cdhist/1")
        #expect(info["kind"] as? String == "info")
        #expect(info["storeID"] as? String == Scenarios.appGroupUUID)
        #expect(info["transactionCount"] as? Int == 34)
        #expect(info["changeCount"] as? Int == 67)
        // Counting by type reads every change: only on request.
        #expect(info["deleteCount"] is NSNull)
        let typed = try CLI.run(["info", appGroup, "--change-types"]).json()
        #expect(
            typed["insertCount"] as? Int == 35 && typed["updateCount"] as? Int == 27
                && typed["deleteCount"] as? Int == 5)
        let purged = try CLI.run(["info", Repository.fixtures + "/Purged/Tasks.sqlite"]).json()
        #expect(purged["firstTransactionNumber"] as? Int == 21)
        #expect((purged["purgeTraces"] as? [String: Any])?["startsAfterFirst"] as? Bool == true)
        let table = try CLI.run(["info", appGroup, "--format", "table"])
        #expect(table.stdout.contains("Transactions:      34 (#1…#34)"))
        #expect(!table.stdout.contains("\u{1B}["))
    }

    @Test func transactionsInEveryFormat() throws {
        let json = try CLI.run(["transactions", appGroup, "--author", "widget"]).json()
        let txs = try #require(json["transactions"] as? [[String: Any]])
        #expect(txs.count == 7)
        #expect(txs.allSatisfy { $0["author"] as? String == "widget" })
        #expect(
            Set(txs[0].keys) == [
                "transactionNumber", "timestamp", "cocoaTimestamp", "author", "contextName", "bundleID",
                "processID", "storeID", "token", "changeCount", "queryGenerationLength",
            ])
        #expect(txs[0]["timestamp"] as? String == "2025-03-03T10:15:00.000Z")

        let nd = try CLI.run(["transactions", appGroup, "--format", "ndjson", "--after", "tx:30"])
        #expect(nd.lines.count == 4)
        for line in nd.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["format"] as? String == "cdhist/1")
            #expect((object["transactionNumber"] as? Int ?? 0) > 30)
        }
        let csv = try CLI.run(["transactions", appGroup, "--format", "csv", "--author", "none"])
        #expect(
            csv.lines.first
                == """
                transactionNumber,timestamp,cocoaTimestamp,author,contextName,bundleID,processID,storeID,token,changeCount,queryGenerationLength,warnings
                """
        )
        #expect(csv.lines.count == 2)
        #expect(csv.lines[1].hasPrefix("13,"))
        let table = try CLI.run(["transactions", appGroup, "--format", "table", "--limit", "2", "--reverse"])
        #expect(table.lines.count == 3)
        #expect(table.lines[1].hasPrefix("34 "))
        let utc = try CLI.run(["transactions", appGroup, "--format", "table", "--utc", "--limit", "1"])
        #expect(utc.stdout.contains("2025-03-03 09:00:00.000Z"))
        let before = try CLI.run(["transactions", appGroup, "--before", "2025-03-03T09:05:00Z", "--format", "csv"])
        #expect(before.lines.count == 4)
    }

    @Test func changesDecodeAndFilter() throws {
        let json = try CLI.run([
            "changes", appGroup, "--entity", "Attachment", "--include-subentities", "--type", "update",
        ]).json()
        let changes = try #require(json["changes"] as? [[String: Any]])
        #expect(changes.count == 2)
        #expect(changes[0]["entity"] as? String == "Photo")
        #expect(changes[0]["updatedProperties"] as? [String] == ["filename", "height", "width"])
        #expect(changes[1]["updatedProperties"] as? [String] == ["task", "pageCount"])
        let deletes = try #require(
            try CLI.run(["changes", appGroup, "--type", "delete", "--entity", "Document"]).json()["changes"]
                as? [[String: Any]])
        let tombstone = try #require(deletes.first?["tombstone"] as? [String: Any])
        #expect(tombstone["filename"] as? String == "receipt.pdf")
        #expect(tombstone["uuid"] as? String == HistoryPresenterUUID.text(Scenarios.uuidBytes(101)))
        let noModel = try CLI.run([
            "changes", Repository.fixtures + "/NoModelCache/Tasks.sqlite", "--type", "update", "--limit", "1",
        ])
        #expect(noModel.status == 0)
        #expect(noModel.stderr.contains("no model cache"))
        let raw = try #require(try noModel.json()["changes"] as? [[String: Any]])
        #expect(raw[0]["updatedProperties"] is NSNull)
        let withModel = try CLI.run([
            "changes", Repository.fixtures + "/NoModelCache/Tasks.sqlite", "--type", "update", "--limit", "1",
            "--model", Repository.fixtures + "/NoModelCache/Tasks.xcdatamodel",
        ])
        #expect(withModel.stderr.isEmpty)
        #expect(
            ((try withModel.json()["changes"] as? [[String: Any]])?.first?["updatedProperties"] as? [String]) == [
                "members"
            ])
        // A name no transaction has is said, with the names like it (here: the case differs).
        for command in ["transactions", "changes", "export"] {
            let r = try CLI.run([command, appGroup, "--author", "Widget", "--bundle", "com.example.task"])
            #expect(r.status == 0)
            #expect(
                r.stderr == "cdhist: note: --author 'Widget' matches no transaction; did you mean 'widget'?\n"
                    + """
                    cdhist: note: --bundle 'com.example.task' matches no transaction; did you mean \
                    'com.example.tasks' or 'com.example.tasks.share' or 'com.example.tasks.widget'?\n
                    """,
                "\(command): \(r.stderr)")
        }
        // Names that exist but match nothing together are no mistake: nothing is said.
        let none = try CLI.run(["transactions", appGroup, "--author", "widget", "--bundle", "com.example.tasks.share"])
        #expect(none.status == 0 && none.stderr.isEmpty, "\(none.stderr)")
    }

    @Test func showEntitiesAuthors() throws {
        let show = try CLI.run(["show", appGroup, "tx:25"]).json()
        let tx = try #require(show["transaction"] as? [String: Any])
        #expect(tx["transactionNumber"] as? Int == 25)
        #expect((tx["changes"] as? [[String: Any]])?.count == 3)
        let missing = try CLI.run(["show", appGroup, "99"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "cdhist: \(appGroup): no transaction 99 (the store has #1…#34)\n")

        let entities = try #require(try CLI.run(["entities", appGroup]).json()["entities"] as? [[String: Any]])
        let task = try #require(entities.first { $0["entity"] as? String == "Task" })
        #expect(task["columnsBytes"] as? Int == 2)
        #expect(task["tombstoneAttributes"] as? [String] == ["title", "uuid"])
        let layout = try CLI.run(["entities", appGroup, "--entity", "Task", "--format", "table"])
        #expect(layout.stdout.contains("Task: 10 slots, 2 ZCOLUMNS bytes"))
        #expect(layout.stdout.contains("toOneOrderColumn"))

        let authors = try CLI.run(["authors", appGroup]).json()
        let list = try #require(authors["authors"] as? [[String: Any]])
        #expect(list.first?["value"] as? String == "app")
        #expect(list.first?["transactionCount"] as? Int == 16)
        #expect(
            Set(list.compactMap { $0["value"] as? String }).isSuperset(of: [
                "widget", "shareExtension", "NSCloudKitMirroringDelegate.import",
            ]))
        #expect(authors["contextNames"] != nil && authors["bundleIDs"] != nil && authors["processIDs"] != nil)
    }

    @Test func exportStreamsOneTransactionPerLineAndWritesAtomically() throws {
        let r = try CLI.run(["export", appGroup])
        #expect(r.lines.count == 34)
        let dir = try TemporaryDirectory()
        let out = dir.file("history.ndjson")
        let w = try CLI.run(["export", appGroup, "--out", out, "--author", "widget"])
        #expect(w.status == 0 && w.stdout.isEmpty)
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 7)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["history.ndjson"])
        let bad = try CLI.run(["export", appGroup, "--out", dir.file("missing/x.ndjson")])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("cdhist: \(dir.file("missing/x.ndjson")): cannot write"))
    }

    @Test func noCommandChangesAnyInputFile() throws {
        var folders = ["AppGroup", "Purged", "NoModelCache", "WALPending"].map { Repository.fixtures + "/" + $0 }
        if let real = RealStores.directory { folders += [real + "/photos-10.15.7", real + "/swiftdata-resources"] }
        for folder in folders {
            let store = try FileManager.default.contentsOfDirectory(atPath: folder)
                .first { $0.hasSuffix(".sqlite") || $0.hasSuffix(".store") }.map { folder + "/" + $0 }
            let path = try #require(store)
            let before = try DirectoryState(folder)
            let first = try CLI.run(["info", path]).json()["firstTransactionNumber"] as? Int ?? 1
            for args in [
                ["info"], ["transactions"], ["changes"], ["show", path, String(first)], ["entities"], ["authors"],
                ["export"],
            ] {
                let full = args.count == 1 ? [args[0], path] : args
                for format in ["table", "json", "ndjson", "csv"]
                where !(args[0] == "export" && (format == "table" || format == "csv")) {
                    let r = try CLI.run(full + ["--format", format])
                    #expect(r.status == 0, "\(full) \(format): \(r.stderr)")
                    #expect(!r.stdout.isEmpty)
                    if format == "json" {
                        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) }
                    }
                    if format == "ndjson" {
                        for line in r.lines {
                            #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(line.utf8)) }
                        }
                    }
                }
            }
            #expect(try DirectoryState(folder) == before, "\(folder) changed")
        }
    }

    @Test func walContentIsSeen() throws {
        let info = try CLI.run(["info", Repository.fixtures + "/WALPending/Tasks.sqlite"]).json()
        #expect(info["transactionCount"] as? Int == 34)
        // The main file alone (immutable: the WAL is ignored) holds 26 of them.
        let mainOnly = try LogicalDump.of(Repository.fixtures + "/WALPending/Tasks.sqlite", immutable: true)
        let start = try #require(mainOnly.firstIndex { $0.hasPrefix("table ATRANSACTION:") })
        let rows = mainOnly[(start + 1)...].prefix { !$0.hasPrefix("table ") }
        #expect(rows.count == 26)
    }
}

/// UUID text the way the presenter writes 16-byte UUID tombstones.
enum HistoryPresenterUUID {
    static func text(_ b: [UInt8]) -> String {
        UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        ).uuidString
    }
}

/// Colour and terminal behaviour, through a pseudo-terminal made by script(1).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"))) struct TerminalTests {
    private func onTerminal(_ command: String, env: String = "") throws -> String {
        let binary = CLI.products.appendingPathComponent("cdhist").path
        return try CLI.run(
            ["-qec", "\(env) COLUMNS=80 \(binary) \(command)", "/dev/null"], executable: "/usr/bin/script",
            environment: ["CDHIST_FORMAT": ""]
        ).stdout
    }

    /// Through a pipe or into a file a command writes the table the terminal shows, without
    /// colour; JSON when asked, by --format or CDHIST_FORMAT.
    @Test func pipesKeepTheTableTheTerminalShows() throws {
        let f = Repository.fixtures
        let command =
            "actors \(f)/AppGroup/Tasks.sqlite --defaults \(f)/MergeState/phtk.plist --utc --now 2026-01-05T10:00:00Z"
        // script(1) ends lines with CR LF.
        let shown = try onTerminal(command + " --no-color").replacingOccurrences(of: "\r\n", with: "\n")
        let piped = try CLI.run(
            command.components(separatedBy: " "), environment: ["CDHIST_FORMAT": "", "COLUMNS": "80"])
        #expect(piped.status == 0 && piped.stdout.contains("Actor") && !piped.stdout.contains("\u{1B}"))
        #expect(piped.stdout == shown)
        let json = try CLI.run(command.components(separatedBy: " "), environment: ["CDHIST_FORMAT": "json"])
        #expect((try json.json())["actors"] is [[String: Any]])
        let asked = try CLI.run(
            command.components(separatedBy: " ") + ["--format", "table"], environment: ["CDHIST_FORMAT": "json"])
        #expect(asked.stdout.contains("Actor"))
        let wrong = try CLI.run(command.components(separatedBy: " "), environment: ["CDHIST_FORMAT": "xml"])
        #expect(wrong.status == 2 && wrong.stdout.isEmpty)
        #expect(
            wrong.stderr == "cdhist: CDHIST_FORMAT 'xml': not a format (use table, json, ndjson or csv, or unset it)\n")
    }

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        let colored = try onTerminal("changes \(store) --type delete")
        #expect(colored.contains("\u{1B}[31mdelete"))
        let plain = try onTerminal("changes \(store) --type delete", env: "NO_COLOR=1")
        #expect(!plain.contains("\u{1B}["))
        #expect(plain.contains("delete"))
        #expect(!(try onTerminal("changes \(store) --type delete --no-color")).contains("\u{1B}["))
        // On a terminal the default format is a table fitted to the width: every transaction, no line wider.
        let table = try onTerminal("transactions \(store) --no-color")
        #expect(table.contains("Author"))
        // script(1) ends lines with CR LF, a single Character in Swift.
        let lines = table.components(separatedBy: .newlines).filter { !$0.isEmpty }
        #expect(
            (1...34).allSatisfy { n in lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(n)  ") } })
        #expect(lines.allSatisfy { $0.count <= 80 })
    }
}
