import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

@Suite struct MergeStateCLITests {
    let dir = Repository.fixtures + "/MergeState"
    let now = "2025-03-06T09:00:00Z"

    @Test func actorsTablePrintsOneUnderstandableLinePerActor() throws {
        let r = try CLI.run([
            "actors", dir + "/Tasks.sqlite", "--defaults", dir + "/phtk.plist", "--token",
            "intents=" + dir + "/foreign-token.data",
            "--actor", "app", "--actor", "widget", "--actor", "shareExtension", "--actor", "intents",
            "--now", now, "--utc", "--format", "table",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.components(separatedBy: "\n")
        func line(_ actor: String) -> String? { lines.first { $0.hasPrefix(actor + " ") } }
        let app = try #require(line("app"))
        #expect(
            app.contains("up-to-date") && app.contains("#34 2025-03-05 09:50:00.000Z (date)")
                && app.contains("nothing to do"))
        let widget = try #require(line("widget"))
        #expect(
            widget.contains("behind") && widget.contains("#20") && widget.contains("11 (app 6,")
                && widget.contains("oldest 1d 20h old"))
        // It saved again after others' changes without moving its position: it does not merge.
        #expect(
            widget.contains("it saves but does not merge") && widget.contains("make it merge history each time it runs")
        )
        let share = try #require(line("shareExtension"))
        #expect(share.contains("it merges them when it next runs"))
        let intents = try #require(line("intents"))
        #expect(
            intents.contains("foreign-token") && intents.contains("134501")
                && intents.contains("delete the saved token"))
        #expect(r.stdout.contains("Cleaner cut-offs now"))
        // Strategies that agree share a row; the notes are said once, under the table.
        #expect(
            lines.contains {
                $0.hasPrefix("no purge ")
                    && $0.hasSuffix("  phtk-1.0.0, phtk-1.0.0-manual, phtk-2, fatbobman, swiftlee, studapp")
            }, "\(r.stdout)")
        #expect(
            lines.contains {
                $0.hasPrefix("2025-03-04 11:30:00.000Z² ")
                    && $0.contains(" 14³  phtk-1.0.4, phtk-2-manual, fatbobman-demo¹")
            }, "\(r.stdout)")
        #expect(
            r.stdout.contains(
                """
                ² held back by widget, whose position sets the cut-off; ³ deletes only what app, widget, \
                shareExtension, intents wrote; ⁴ deletes only what com.github.3lvis.SwiftSync.inbound wrote.
                """
            ), "\(r.stdout)")
    }

    /// A merge-state file beside the store (a library deep in a case folder) is named by its file name: the
    /// store's line names the folder. One elsewhere is named whole, and JSON names every file whole.
    @Test func actorsNamesAFileBesideTheStoreByItsFileName() throws {
        let root = try TemporaryDirectory()
        let fm = FileManager.default
        let deep = root.file("case-2026-0117/evidence/extraction/private/var/mobile/Media/PhotoData")
        try fm.createDirectory(atPath: deep, withIntermediateDirectories: true)
        for name in ["Tasks.sqlite", "phtk.plist"] {
            try fm.copyItem(atPath: dir + "/" + name, toPath: deep + "/" + name)
        }
        let elsewhere = dir + "/foreign-token.data"
        let args = [
            "actors", deep + "/Tasks.sqlite", "--defaults", deep + "/phtk.plist",
            "--token", "intents=" + elsewhere, "--now", now,
        ]
        let table = try CLI.run(args + ["--format", "table"], environment: ["COLUMNS": "80"])
        #expect(table.status == 0, "\(table.stderr)")
        let beside = "Source: phtk.plist: defaults (binary), 3 positions, 4 other keys ignored"
        #expect(table.lines.contains(beside), "\(table.stdout)")
        #expect(table.stdout.contains("Source: \(elsewhere): token file"), "\(table.stdout)")
        let sources = try CLI.run(args + ["--format", "json"]).json()["sources"] as? [[String: Any]]
        #expect(sources?.compactMap { $0["path"] as? String } == [deep + "/phtk.plist", elsewhere])

        // Photos with its token, as an extraction holds them: under the store's lines (two at /tmp/case-…/PhotoData,
        // the page then 30 lines), the time and the token's one line.
        guard RealStores.available else { return }
        let photos = deep + "/Photos.sqlite"
        let token = deep + "/HistoryToken.plist"
        for suffix in ["", "-wal", "-shm"] {
            try fm.copyItem(atPath: RealStores.photos + suffix, toPath: photos + suffix)
        }
        try fm.copyItem(atPath: RealStores.photosToken, toPath: token)
        let r = try CLI.run(["actors", photos, "--token", token, "--format", "table"], environment: ["COLUMNS": "80"])
        let header = Array(r.lines.prefix { !$0.hasPrefix("Actors") })
        let storeLines = try #require(header.firstIndex { $0.hasPrefix("As of:") })
        #expect(r.status == 0 && header.count == storeLines + 3 && r.lines.count <= 29 + storeLines, "\(r.stdout)")
        #expect(
            header[storeLines + 1].range(
                of: "^Newest: #516 at 2022-[0-9:. +-]+, [0-9]+d [0-9]+h old$", options: .regularExpression) != nil,
            "\(header[storeLines + 1])")
        #expect(r.lines.contains("Source: HistoryToken.plist: token file, 1 position"), "\(r.stdout)")
    }

    /// SwiftData apps keep each target's token as `historyToken.<target>`: the prefix the keys share before the
    /// authors' names is inferred, so the widget's own writes are not among what it has to merge and it is not
    /// listed again among the writers; a prefix given with --key-prefix is taken as given.
    @Test func keysSharingAPrefixBeforeAuthorsNamesAreTheirActors() throws {
        let f = Repository.fixtures + "/CloudKit"
        let args = ["actors", f + "/Tasks.sqlite", "--defaults", f + "/swiftdata.plist", "--now", now]
        let doc = try CLI.run(args).json()
        let actors = try #require(doc["actors"] as? [[String: Any]])
        #expect(actors.map { $0["actor"] as? String } == ["app", "widget", "CloudKit export"])
        let widget = try #require(actors.first { $0["actor"] as? String == "widget" })
        #expect(widget["pendingCount"] as? Int == 11 && widget["ownTransactionsAfterPosition"] as? Int == 3)
        #expect((widget["positions"] as? [[String: Any]])?.first?["keyFormat"] as? String == "prefix historyToken.")
        let writers = (doc["writers"] as? [[String: Any]])?.compactMap { $0["author"] as? String } ?? []
        #expect(!writers.contains("widget") && !writers.contains("app"), "\(writers)")
        #expect((doc["sources"] as? [[String: Any]])?.first?["inferredKeyPrefix"] as? String == "historyToken.")
        let table = try CLI.run(args + ["--format", "table"], environment: ["COLUMNS": "80"]).stdout
        #expect(table.contains("keys historyToken.<actor> (the prefix inferred from the authors;"), "\(table)")
        let given = try CLI.run(args + ["--key-prefix", "historyToken."]).json()
        #expect((given["sources"] as? [[String: Any]])?.first?["inferredKeyPrefix"] is NSNull)
        #expect(
            (given["actors"] as? [[String: Any]])?.map { $0["actor"] as? String } == [
                "app", "widget", "CloudKit export",
            ])
        // Keys that are authors' names themselves need no prefix: tokens.plist's keys name no author, and stay.
        let plain = try CLI.run(["actors", dir + "/Tasks.sqlite", "--defaults", dir + "/tokens.plist", "--now", now])
            .json()
        #expect((plain["sources"] as? [[String: Any]])?.first?["inferredKeyPrefix"] is NSNull)
    }

    @Test func actorsJSONAndGroupContainer() throws {
        let json = try CLI.run([
            "actors", "--group-container", Repository.fixtures + "/GroupContainer/" + MergeStateFixtures.containerUUID,
            "--actor", "app", "--actor", "widget", "--batch-actor", "shareExtension", "--token", "ignored=/nonexistent",
            "--now", now,
        ])
        #expect(json.status == 2)
        #expect(json.stderr == "cdhist: /nonexistent: no such token file\n")
        let r = try CLI.run([
            "actors", "--group-container", Repository.fixtures + "/GroupContainer/" + MergeStateFixtures.containerUUID,
            "--actor", "app", "--actor", "widget", "--actor", "token", "--batch-actor", "shareExtension", "--now", now,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try r.json()
        #expect(doc["kind"] as? String == "actors")
        let actors = try #require(doc["actors"] as? [[String: Any]])
        let statuses = Dictionary(
            uniqueKeysWithValues: actors.map { ($0["actor"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(
            statuses == ["app": "up-to-date", "widget": "behind", "token": "behind", "shareExtension": "writes-only"])
        #expect((doc["sources"] as? [[String: Any]])?.count == 2)
        let cleaners = try #require(doc["cleaners"] as? [[String: Any]])
        #expect(cleaners.map { $0["strategy"] as? String ?? "" } == CleanerStrategy.allCases.map(\.rawValue))
        #expect(
            cleaners.map { $0["strategy"] as? String ?? "" } == [
                "apple", "apple-604800", "phtk-1.0.0", "phtk-1.0.0-manual", "phtk-1.0.4", "phtk-2",
                "phtk-2-manual", "fatbobman", "fatbobman-demo", "swiftlee", "studapp", "appwise",
                "swiftsync",
            ])
        let phtk2 = try #require(cleaners.first { $0["strategy"] as? String == "phtk-2" })
        #expect(phtk2["heldBackBy"] as? String == "widget")
        #expect(phtk2["transactionsToDelete"] as? Int == 14)
    }

    /// Apple's current listing counts seven calendar days in the local time zone (TZ; UTC with
    /// --utc), its earlier one 604,800 s: across New York's change to daylight saving time
    /// (2021-03-14, 2025-03-09) they cut an hour apart, in the cleaners' table and in the purge
    /// preview of each.
    @Test func appleListingsAcrossADaylightSavingChange() throws {
        let store = dir + "/Tasks.sqlite"
        func cutoffs(_ extra: [String]) throws -> [String: String] {
            let r = try CLI.run(
                ["actors", store, "--actor", "app", "--now", "2021-03-16T12:00:00Z"] + extra,
                environment: ["TZ": "America/New_York"])
            #expect(r.status == 0, "\(r.stderr)")
            let cleaners = try #require(try r.json()["cleaners"] as? [[String: Any]])
            return Dictionary(
                uniqueKeysWithValues: cleaners.compactMap { c in
                    (c["cutoff"] as? String).map { (c["strategy"] as? String ?? "", $0) }
                })
        }
        let local = try cutoffs([])
        #expect(
            local["apple"] == "2021-03-09T13:00:00.000Z" && local["apple-604800"] == "2021-03-09T12:00:00.000Z",
            "\(local)")
        let utc = try cutoffs(["--utc"])
        #expect(
            utc["apple"] == "2021-03-09T12:00:00.000Z" && utc["apple-604800"] == "2021-03-09T12:00:00.000Z", "\(utc)")

        // 2025-03-10T11:00Z is 07:00 EDT; a week before, 07:00 EST is 12:00Z: #11–#14 (11:10–11:40Z) go too.
        let nyc = ["TZ": "America/New_York", "COLUMNS": "100"]
        let args = [store, "--actor", "app", "--now", "2025-03-10T11:00:00Z"]
        let table = try CLI.run(["actors"] + args + ["--format", "table"], environment: nyc)
        #expect(
            table.lines.contains { $0.hasPrefix("2025-03-03 07:00:00.000 -05:00 ") && $0.hasSuffix(" 14  apple") },
            "\(table.stdout)")
        #expect(
            table.lines.contains {
                $0.hasPrefix("2025-03-03 06:00:00.000 -05:00 ") && $0.hasSuffix(" 10  apple-604800, appwise¹")
            }, "\(table.stdout)")
        let earlier = try CLI.run(
            ["purge"] + args + ["--strategy", "apple-604800"], environment: ["TZ": "America/New_York"]
        ).json()
        #expect(earlier["rule"] as? String == "Apple's documentation, earlier listing: now − 604800 s (7 days)")
        #expect(
            earlier["cutoff"] as? String == "2025-03-03T11:00:00.000Z" && earlier["cutoffTransaction"] as? Int == 11)
        #expect(earlier["transactionCount"] as? Int == 10 && earlier["lastTransactionNumber"] as? Int == 10)
        let current = try CLI.run(["purge"] + args + ["--strategy", "apple"], environment: ["TZ": "America/New_York"])
            .json()
        #expect(current["rule"] as? String == "Apple's documentation: now − 7 calendar days in America/New_York")
        #expect(
            current["cutoff"] as? String == "2025-03-03T12:00:00.000Z" && current["cutoffTransaction"] as? Int == 15)
        #expect(current["transactionCount"] as? Int == 14 && current["lastTransactionNumber"] as? Int == 14)
        // Two weeks are fourteen calendar days for the one, 1,209,600 s for the other.
        let twoWeeks = try CLI.run(
            ["purge"] + args + ["--strategy", "apple", "--retention", "2w"], environment: ["TZ": "America/New_York"]
        ).json()
        #expect(twoWeeks["rule"] as? String == "Apple's documentation: now − 14 calendar days in America/New_York")
        #expect(twoWeeks["cutoff"] as? String == "2025-02-24T12:00:00.000Z")
    }

    /// SwiftSync's cleaner has no cut-off date: its row says what it deletes (all history by its
    /// inbound author) and how many transactions that is; its purge deletes those (#6, #19 and
    /// #37 of 37) and no other.
    @Test func swiftSyncRowAndPurgeDeleteItsAuthorsTransactions() throws {
        let tmp = try TemporaryDirectory()
        let store = tmp.file("Tasks.sqlite")
        try StoreWriter.write(SwiftSyncFixtures.store(), to: store)
        let args = [store, "--actor", "app", "--now", now, "--utc"]
        let doc = try CLI.run(["actors"] + args).json()
        let row = try #require(
            (doc["cleaners"] as? [[String: Any]])?.first { $0["strategy"] as? String == "swiftsync" })
        #expect(row["cutoff"] is NSNull && row["allDates"] as? Bool == true && row["transactionsToDelete"] as? Int == 3)
        #expect(
            row["authorFilter"] as? [String] == [SwiftSyncFixtures.inboundAuthor]
                && row["title"] as? String == "SwiftSync")
        #expect((row["source"] as? String)?.hasPrefix("3lvis/SwiftSync #663") == true)
        // "every date" in its row, and its mark names whose history under the table: a long author in the
        // first column would wrap to the start of the next line and read as another row.
        for width in ["200", "80"] {
            let table = try CLI.run(["actors"] + args + ["--format", "table"], environment: ["COLUMNS": width])
            let row = try #require(table.lines.first { $0.hasPrefix("every date ") }, "\(table.stdout)")
            let mark = try #require(
                row.range(of: "(?<= 3)[¹²³⁴⁵⁶⁷⁸⁹]+(?=  swiftsync$)", options: .regularExpression).map {
                    String(row[$0])
                }, "\(row)")
            #expect(
                table.stdout.replacingOccurrences(of: "\n", with: " ").contains(
                    "\(mark) deletes only what com.github.3lvis.SwiftSync.inbound wrote"),
                "\(table.stdout)")
            #expect(!table.lines.contains { $0.hasPrefix("com.github") }, "\(table.stdout)")
            #expect(table.lines.allSatisfy { $0.count <= Int(width) ?? 0 })
        }

        let purge = try CLI.run(["purge"] + args + ["--strategy", "swiftsync"]).json()
        #expect(
            purge["rule"] as? String == "SwiftSync: all history by com.github.3lvis.SwiftSync.inbound, at every date")
        #expect(
            purge["cutoff"] is NSNull && purge["transactionCount"] as? Int == 3 && purge["changeCount"] as? Int == 4)
        #expect(purge["firstTransactionNumber"] as? Int == 6 && purge["lastTransactionNumber"] as? Int == 37)
        #expect(purge["survivingTransactionCount"] as? Int == 34)
        let byAuthor = try #require(purge["byAuthor"] as? [[String: Any]])
        #expect(
            byAuthor.count == 1 && byAuthor.first?["author"] as? String == SwiftSyncFixtures.inboundAuthor
                && byAuthor.first?["transactions"] as? Int == 3)
        let preview = try CLI.run(
            ["purge"] + args + ["--strategy", "swiftsync", "--format", "table"], environment: ["COLUMNS": "100"])
        #expect(
            preview.stdout.contains("Cut-off:      none (no date bound): every transaction of the selected authors"),
            "\(preview.stdout)")
        // Executed, the deleted set is the three and no other.
        let executed = try CLI.run(["purge"] + args + ["--strategy", "swiftsync", "--execute", "--yes", "--no-backup"])
        #expect(executed.status == 0, "\(executed.stderr)")
        let left = try #require(try CLI.run(["transactions", store]).json()["transactions"] as? [[String: Any]])
        let numbers = left.compactMap { $0["transactionNumber"] as? Int }
        #expect(numbers == (1...37).filter { ![6, 19, 37].contains($0) }, "\(numbers)")
        // A store it never wrote to: 0 to delete.
        let plain = try CLI.run(["actors", dir + "/Tasks.sqlite", "--actor", "app", "--now", now]).json()
        let none = try #require(
            (plain["cleaners"] as? [[String: Any]])?.first { $0["strategy"] as? String == "swiftsync" })
        #expect(
            none["transactionsToDelete"] as? Int == 0 && none["breaks"] as? [Any] != nil
                && (none["breaks"] as? [Any])?.isEmpty == true)
    }

    @Test func purgedStoreShowsBrokenActors() throws {
        let p = Repository.fixtures + "/Purged"
        let doc = try CLI.run([
            "actors", p + "/Tasks.sqlite", "--defaults", p + "/defaults.plist", "--token",
            "widget=" + p + "/widget-token.data",
            "--now", now,
        ]).json()
        let actors = try #require(doc["actors"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: actors.map { ($0["actor"] as? String ?? "", $0) })
        #expect(byName["app"]?["status"] as? String == "missed-changes")
        #expect(byName["widget"]?["status"] as? String == "expired")
        #expect(byName["widget"]?["tokenTransactionNumber"] as? Int == 15)
    }

    /// Under the table, the command that resets each broken actor, as it can be copied; run, it
    /// leaves the actor no longer broken.
    @Test func brokenActorsGetTheCommandThatResetsThem() throws {
        let dir = try TemporaryDirectory()
        for file in ["Tasks.sqlite", "defaults.plist", "widget-token.data"] {
            try FileManager.default.copyItem(atPath: Repository.fixtures + "/Purged/" + file, toPath: dir.file(file))
        }
        let args = [
            "actors", "Tasks.sqlite", "--defaults", "defaults.plist", "--token", "widget=widget-token.data", "--now",
            now,
        ]
        func table(_ columns: Int) throws -> [String] {
            try CLI.run(
                [
                    "-c",
                    """
                    cd \(dir.path) && COLUMNS=\(columns) \(CLI.products.path)/cdhist \
                    \(args.joined(separator: " ")) --format table
                    """,
                ],
                executable: "/bin/sh"
            ).stdout.components(separatedBy: "\n")
        }
        let repair = "  cdhist repair-defaults defaults.plist --actor app --remove --store Tasks.sqlite --execute"
        let wide = try table(120)
        #expect(wide.contains(repair) && wide.contains("  rm widget-token.data"), "\(wide)")
        // Narrower, a command goes on over lines the shell joins.
        let narrow = try table(60)
        #expect(
            narrow.contains("  cdhist repair-defaults defaults.plist --actor app \\")
                && narrow.contains("      --remove --store Tasks.sqlite --execute"),
            "\(narrow)")
        let json = try CLI.run(
            ["-c", "cd \(dir.path) && \(CLI.products.path)/cdhist \(args.joined(separator: " ")) --format json"],
            executable: "/bin/sh"
        ).json()
        let fixes = (json["actors"] as? [[String: Any]] ?? []).map { $0["fix"] as? String }
        #expect(
            fixes == [
                "cdhist repair-defaults defaults.plist --actor app --remove --store Tasks.sqlite --execute", nil,
                "rm widget-token.data",
            ])
        let run = try CLI.run(
            [
                "-c",
                "cd \(dir.path) && \(CLI.products.path)/" + repair.dropFirst(2) + " >/dev/null && rm widget-token.data",
            ], executable: "/bin/sh")
        #expect(run.status == 0, "\(run.stderr)")
        let after = try CLI.run(
            [
                "-c",
                """
                cd \(dir.path) && \(CLI.products.path)/cdhist actors Tasks.sqlite --defaults defaults.plist --now \
                \(now) --format json
                """,
            ],
            executable: "/bin/sh"
        ).json()
        #expect(
            (after["actors"] as? [[String: Any]])?.contains { ["app", "widget"].contains($0["actor"] as? String) }
                == false)
        // A path with a space or a quote is quoted so that the line runs as it is.
        let odd = dir.file("My 'Store'")
        try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repository.fixtures + "/Purged/widget-token.data", toPath: odd + "/token.data")
        let quoted = try CLI.run([
            "actors", dir.file("Tasks.sqlite"), "--token", "widget=" + odd + "/token.data", "--now", now,
        ]).json()
        let fix = try #require((quoted["actors"] as? [[String: Any]])?.first?["fix"] as? String)
        #expect(fix == "rm '" + odd.replacingOccurrences(of: "'", with: "'\\''") + "/token.data'")
        #expect(
            try CLI.run(["-c", fix], executable: "/bin/sh").status == 0
                && !FileManager.default.fileExists(atPath: odd + "/token.data"))
        // A path longer than the line is broken after its slashes; the lines, copied as printed, run.
        let deep = odd + "/a rather long folder name/and-another-one-that-goes-on-and-on/Library/Preferences"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repository.fixtures + "/Purged/widget-token.data", toPath: deep + "/token.data")
        let long = try CLI.run(
            [
                "actors", dir.file("Tasks.sqlite"), "--token", "widget=" + deep + "/token.data", "--now", now,
                "--format", "table",
            ],
            environment: ["COLUMNS": "60"]
        ).lines
        #expect(long.allSatisfy { $0.count <= 60 }, "\(long)")
        let start = try #require(long.firstIndex { $0.hasPrefix("  rm ") }, "\(long)")
        let end = try #require(long[start...].firstIndex { !$0.hasSuffix("\\") })
        let command = long[start...end]
        #expect(command.count > 2, "\(long)")
        let removed = try CLI.run(["-c", command.joined(separator: "\n")], executable: "/bin/sh")
        #expect(removed.status == 0, "\(command) \(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: deep + "/token.data"))
    }

    /// A file of the wrong kind for its option is recognised and the right option named, never read
    /// as a corrupt token (with advice to delete the app's defaults) or as defaults without positions.
    @Test func aFileOfTheWrongKindNamesItsOption() throws {
        let store = dir + "/Tasks.sqlite"
        let defaultsAsToken = try CLI.run(["actors", store, "--token", "widget=" + dir + "/phtk.plist"])
        #expect(defaultsAsToken.status == 2 && defaultsAsToken.stdout.isEmpty)
        #expect(
            defaultsAsToken.stderr
                == """
                cdhist: \(dir)/phtk.plist: a plist of settings holding 3 merge positions and no token, not a \
                token file: an app's shared defaults are given with --defaults\n
                """
        )
        let severalAsToken = try CLI.run(["purge", store, "--before", "token:" + dir + "/tokens.plist"])
        #expect(severalAsToken.status == 2)
        #expect(
            severalAsToken.stderr.contains(
                """
                tokens.plist: a plist holding 3 history tokens (lastHistoryToken, shareHistoryToken (damaged), \
                widgetHistoryToken), not one token: cdhist token lists them; shared defaults like this are given \
                with --defaults
                """
            ), "\(severalAsToken.stderr)")
        // One good token beside a damaged one is no single token either: which one was meant, nothing says.
        let scratch = try TemporaryDirectory()
        let two = scratch.file("two.plist")
        var held = try #require(
            try PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: dir + "/tokens.plist")), format: nil) as? [String: Any])
        held["widgetHistoryToken"] = nil
        try PropertyListSerialization.data(fromPropertyList: held, format: .binary, options: 0).write(
            to: URL(fileURLWithPath: two))
        let goodAndDamaged = try CLI.run(["transactions", store, "--after", "token:" + two])
        #expect(goodAndDamaged.status == 2 && goodAndDamaged.stdout.isEmpty)
        #expect(
            goodAndDamaged.stderr.contains(
                """
                two.plist: a plist holding 2 history tokens (lastHistoryToken, shareHistoryToken (damaged)), not \
                one token
                """
            ), "\(goodAndDamaged.stderr)")
        let tokenAsDefaults = try CLI.run(["actors", store, "--defaults", dir + "/token.data"])
        #expect(tokenAsDefaults.status == 2)
        #expect(
            tokenAsDefaults.stderr
                == """
                cdhist: \(dir)/token.data: a history token, not shared defaults: give it with --token \
                (ACTOR=\(dir)/token.data)\n
                """
        )
        // Data under a key that says it holds a token, but is no archive, is a damaged token.
        let tmp = try TemporaryDirectory()
        let damaged = tmp.file("HistoryToken.plist")
        try PropertyListSerialization.data(
            fromPropertyList: ["HistoryToken": Data([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74])], format: .binary, options: 0
        )
        .write(to: URL(fileURLWithPath: damaged))
        let cut = try CLI.run(["actors", store, "--token", "app=" + damaged])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect((try cut.json()["actors"] as? [[String: Any]])?.first?["status"] as? String == "corrupt-token")
        // token lists every token a plist holds, the damaged one too, each with the status actors gives it.
        let listed = try CLI.run(["token", dir + "/tokens.plist", "--store", store])
        #expect(listed.status == 1)
        let tokens = try #require(try listed.json()["tokens"] as? [[String: Any]])
        #expect(tokens.map { $0["key"] as? String } == ["lastHistoryToken", "shareHistoryToken", "widgetHistoryToken"])
        #expect(tokens.map { $0["status"] as? String } == ["up-to-date", "corrupt-token", "foreign-token"])
        #expect(tokens.map { $0["transactionNumber"] as? Int } == [34, nil, nil])
        #expect(
            (tokens[1]["problem"] as? String)?.hasPrefix(
                "\(dir)/tokens.plist [shareHistoryToken]: corrupt token archive") == true)
        let table = try CLI.run(["token", dir + "/tokens.plist", "--format", "table"], environment: ["COLUMNS": "80"])
        #expect(table.status == 1, "a damaged token fails without a store too")
        #expect(table.lines.prefix(2) == ["Token: \(dir)/tokens.plist", "Holds: 3 tokens, one under each key"])
        #expect(
            table.lines.filter { $0.hasPrefix("Key ") } == [
                "Key lastHistoryToken", "Key shareHistoryToken", "Key widgetHistoryToken",
            ])
        // Without its foreign entry, the damaged one alone fails the check: a CI step gating on token fails.
        let plist = try #require(
            try PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: dir + "/tokens.plist")), format: nil)
                as? [String: Any])
        let damagedOnly = tmp.file("tokens.plist")
        try PropertyListSerialization.data(
            fromPropertyList: plist.filter { $0.key != "widgetHistoryToken" }, format: .binary, options: 0
        )
        .write(to: URL(fileURLWithPath: damagedOnly))
        let gate = try CLI.run(["token", damagedOnly, "--store", store])
        #expect(gate.status == 1)
        #expect(
            (try gate.json()["tokens"] as? [[String: Any]])?.map { $0["status"] as? String } == [
                "up-to-date", "corrupt-token",
            ])
        let actors = try CLI.run(["actors", store, "--defaults", damagedOnly]).json()["actors"] as? [[String: Any]]
        #expect(actors?.map { $0["status"] as? String } == ["up-to-date", "corrupt-token"])
    }

    @Test func tokenCommandExitCodes() throws {
        let store = dir + "/Tasks.sqlite"
        let valid = try CLI.run(["token", dir + "/token.data", "--store", store])
        #expect(valid.status == 0)
        #expect(try valid.json()["status"] as? String == "behind")
        #expect(try valid.json()["message"] as? String == "has 3 transactions by others to merge")
        #expect(try valid.json()["transactionNumber"] as? Int == 31)
        let foreign = try CLI.run(["token", dir + "/foreign-token.data", "--store", store])
        #expect(foreign.status == 1)
        #expect(try foreign.json()["status"] as? String == "foreign-token")
        let expired = try CLI.run([
            "token", Repository.fixtures + "/Purged/widget-token.data", "--store",
            Repository.fixtures + "/Purged/Tasks.sqlite",
        ])
        #expect(expired.status == 1)
        #expect(try expired.json()["status"] as? String == "expired")
        // A damaged token is a token that fails, as actors --token reads it: listed with its problem, exit 1.
        let corrupt = try CLI.run(["token", dir + "/corrupt-token.data"])
        #expect(corrupt.status == 1 && corrupt.stderr.isEmpty)
        #expect(try corrupt.json()["status"] as? String == "corrupt-token")
        #expect(
            (try corrupt.json()["problem"] as? String)?.hasPrefix("\(dir)/corrupt-token.data: corrupt token archive")
                == true)
        let wrong = try CLI.run(["token", dir + "/date-archive.data", "--store", store])
        #expect(wrong.status == 1)
        #expect(
            try wrong.json()["message"] as? String
                == """
                its recorded position cannot be read: \(dir)/date-archive.data: an archive of NSDate, not an \
                NSPersistentHistoryToken
                """
        )
        let multi = try CLI.run(["token", dir + "/multi-store-token.data", "--format", "table"])
        #expect(multi.stdout.contains("this token names 2 stores"))
        let literal = try CLI.run(["token", "\(Scenarios.appGroupUUID):34", "--store", store])
        #expect(literal.status == 0)
        // Tokens naming the extreme numbers are expired, not a trap on number ± 1.
        for n in [Int64.max, Int64.min] {
            let extreme = try CLI.run(["token", "\(Scenarios.appGroupUUID):\(n)", "--store", store])
            #expect(extreme.status == 1, "\(n): \(extreme.stderr)")
            #expect(try extreme.json()["status"] as? String == "expired")
        }
    }

    /// token's names stay short (the store's UUID is in the value): at 80 columns the explanation of an expired
    /// token takes three lines beside them, not five under a 44-wide name column. How many lines the paths take
    /// depends on where the files are, so the test checks the labels and the indent of every wrapped line.
    @Test func tokenTableFitsEightyColumns() throws {
        var cases = [(Repository.fixtures + "/Purged/widget-token.data", Repository.fixtures + "/Purged/Tasks.sqlite")]
        if RealStores.available { cases.append((RealStores.photosToken, RealStores.photos)) }
        for (token, store) in cases {
            let r = try CLI.run(
                ["token", token, "--store", store, "--format", "table"], environment: ["COLUMNS": "80"])
            #expect(r.lines.allSatisfy { $0.count <= 80 }, "\(r.stdout)")
            let values = r.lines.filter { !$0.isEmpty && !$0.hasPrefix("Key ") }
            #expect(
                values.allSatisfy { $0.range(of: "^([A-Z][a-z ]+: +| {17})[^ ]", options: .regularExpression) != nil },
                "\(r.stdout)")
            let labels = values.filter { !$0.hasPrefix(" ") }.map { $0.prefix { $0 != ":" } }
            #expect(
                Array(labels.prefix(5)) == ["Token", "Transaction", "Checked against", "Status", "Meaning"],
                "\(r.stdout)")
            #expect(labels.dropFirst(5).allSatisfy { $0 == "Advice" }, "\(r.stdout)")
            let named = try #require(r.lines.first { $0.hasPrefix("Transaction:") })
            #expect(
                named.range(of: "^Transaction: +#[0-9]+ of store [0-9A-F-]{36}$", options: .regularExpression) != nil,
                "\(named)")
            let meaning = try #require(r.lines.firstIndex { $0.hasPrefix("Meaning:") })
            #expect(
                r.lines[meaning...].prefix { $0 == r.lines[meaning] || $0.hasPrefix(" ") }.count <= 4, "\(r.stdout)")
        }
    }

    @Test(.enabled(if: RealStores.available)) func photosTokenAgainstBothRealStores() throws {
        let token = RealStores.directory! + "/photos-10.15.7/HistoryToken.plist"
        let valid = try CLI.run(["token", token, "--store", RealStores.photos])
        #expect(valid.status == 0)
        #expect(try valid.json()["transactionNumber"] as? Int == 516)
        let foreign = try CLI.run(["token", token, "--store", RealStores.swiftData])
        #expect(foreign.status == 1)
        #expect(try foreign.json()["status"] as? String == "foreign-token")
        let actors = try CLI.run(["actors", RealStores.photos, "--token", "photos=" + token, "--actor", "photos"])
            .json()
        let photos = try #require((actors["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "photos" })
        #expect(photos["status"] as? String == "up-to-date")
        #expect(photos["lastMergedTransaction"] as? Int == 516)
    }

    @Test func everyFormatAndNothingChanges() throws {
        for folder in [dir, Repository.fixtures + "/GroupContainer", Repository.fixtures + "/Purged"] {
            let before = try DirectoryState(folder)
            for format in ["table", "json", "ndjson", "csv"] {
                let actors =
                    folder.hasSuffix("GroupContainer")
                    ? ["actors", "--group-container", folder + "/" + MergeStateFixtures.containerUUID]
                    : [
                        "actors", folder + "/Tasks.sqlite", "--defaults",
                        folder + (folder == dir ? "/stale.plist" : "/defaults.plist"),
                    ]
                let r = try CLI.run(actors + ["--format", format, "--key-prefix", "myapp.merged."])
                #expect(r.status == 0 && !r.stdout.isEmpty, "\(actors) \(format): \(r.stderr)")
                let t = try CLI.run([
                    "token", dir + "/token.data", "--store", dir + "/Tasks.sqlite", "--format", format,
                ])
                #expect(t.status == 0 && !t.stdout.isEmpty)
            }
            #expect(try DirectoryState(folder) == before, "\(folder) changed")
        }
    }

    @Test func mergeStateErrors() throws {
        let noStore = try CLI.run(["actors", "--defaults", dir + "/phtk.plist"])
        #expect(noStore.status == 2)
        #expect(noStore.stderr.contains("give a store, or --group-container"))
        let missing = try CLI.run(["actors", dir + "/Tasks.sqlite", "--defaults", dir + "/missing.plist"])
        #expect(missing.status == 2 && missing.stderr == "cdhist: \(dir)/missing.plist: no such file\n")
        let notPlist = try CLI.run(["actors", dir + "/Tasks.sqlite", "--defaults", dir + "/corrupt-token.data"])
        #expect(
            notPlist.status == 2 && notPlist.stderr.hasPrefix("cdhist: \(dir)/corrupt-token.data: not a property list"))
        let badNow = try CLI.run(["actors", dir + "/Tasks.sqlite", "--now", "soon"])
        #expect(badNow.status == 2 && badNow.stderr.hasPrefix("cdhist: --now 'soon': not a date"))
    }

    /// Other stores' positions kept beside this one's (Apple's sharing sample, HalloApp) are listed
    /// as other stores' keys, never as actors, on the fixture and on the real Photos store.
    @Test func otherStoresKeysAreNotActors() throws {
        let stores =
            [(dir + "/Tasks.sqlite", Scenarios.appGroupUUID)]
            + (RealStores.available ? [(RealStores.photos, RealStores.photosUUID)] : [])
        let tmp = try TemporaryDirectory()
        for (store, uuid) in stores {
            let other = MergeStateFixtures.foreignUUID
            let plist: [String: PlistValue] = [
                "HistoryToken" + uuid: .data(MirroringFixture.token(20, store: uuid)),
                "HistoryToken" + other: .data(MirroringFixture.token(3, store: other)),
                "lastHistoryTransactionTimeStamp-mainDataStore-mainApp": .date(Scenarios.appGroupTime(20)),
                "lastHistoryTransactionTimeStamp-keyStore-mainApp": .date(Scenarios.appGroupTime(2)),
            ]
            try Data(PropertyList.encodeBinary(.dictionary(plist))).write(
                to: URL(fileURLWithPath: tmp.file("defaults.plist")))
            let r = try CLI.run([
                "actors", store, "--defaults", tmp.file("defaults.plist"), "--key-prefix",
                "lastHistoryTransactionTimeStamp-mainDataStore-",
                "--now", now,
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let doc = try r.json()
            let actors = (doc["actors"] as? [[String: Any]] ?? []).compactMap { $0["actor"] as? String }
            #expect(actors == ["HistoryToken" + uuid, "mainApp"], "\(store): \(actors)")
            let source = (doc["sources"] as? [[String: Any]])?.first
            #expect(
                (source?["otherStoreKeys"] as? [String])?.sorted() == [
                    "HistoryToken" + other, "lastHistoryTransactionTimeStamp-keyStore-mainApp",
                ])
            #expect(!(doc["actors"] as? [[String: Any]] ?? []).contains { $0["status"] as? String == "foreign-token" })
        }
    }
}
