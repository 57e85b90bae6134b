import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// Actors (a position, or declared) apart from writers (authors without one), tokens without an author,
/// token literals, framework families, and the session's clear and help.
@Suite struct ActorsAndWritersTests {
    let dir = Repository.fixtures + "/MergeState"
    let now = "2025-03-06T09:00:00Z"

    @Test func writersAreSummarizedNotRows() throws {
        let doc = try CLI.run(["actors", dir + "/Tasks.sqlite", "--defaults", dir + "/phtk.plist", "--now", now]).json()
        let actors = try #require(doc["actors"] as? [[String: Any]])
        #expect(actors.map { $0["actor"] as? String } == ["app", "shareExtension", "widget"])
        let writers = try #require(doc["writers"] as? [[String: Any]])
        #expect(
            writers.map { $0["author"] as? String } == [
                "NSCloudKitMirroringDelegate.export", "NSCloudKitMirroringDelegate.import", nil,
                "NSCloudKitMirroringDelegate.setup",
            ])
        let export = try #require(writers.first)
        #expect(export["family"] as? String == "cloudkit" && export["transactions"] as? Int == 4)
        #expect(export["firstTransaction"] as? Int == 3 && export["lastTransaction"] as? Int == 33)
        #expect(export["firstTimestamp"] as? String == "2025-03-03T09:02:00.000Z")
        let table = try CLI.run([
            "actors", dir + "/Tasks.sqlite", "--defaults", dir + "/phtk.plist", "--now", now, "--format", "table",
        ]).stdout
        #expect(
            table.contains("3 authors write without a merge position (transactions: CloudKit mirroring (3 authors) 7)"),
            "\(table)")
        #expect(table.contains("1 transaction has no author"))
        #expect(!table.contains("unknown-actor"))
        // A declared actor without a position stays a row.
        let declared = try CLI.run(["actors", dir + "/Tasks.sqlite", "--actor", "intents", "--now", now]).json()
        #expect((declared["actors"] as? [[String: Any]])?.map { $0["status"] as? String } == ["never-merged"])
    }

    @Test func aTokenNeedsNoAuthor() throws {
        // Named after its file, no author of that name: its status and pending work come from the token alone.
        let doc = try CLI.run(["actors", dir + "/Tasks.sqlite", "--token", dir + "/token.data", "--now", now]).json()
        let token = try #require((doc["actors"] as? [[String: Any]])?.first)
        #expect(token["actor"] as? String == "token" && token["status"] as? String == "behind")
        #expect(token["pendingCount"] as? Int == 3)
        // ACTOR= naming an author: its own transactions after the token are left out.
        let named = try CLI.run([
            "actors", dir + "/Tasks.sqlite", "--token", "shareExtension=" + dir + "/token.data", "--now", now,
        ]).json()
        let share = try #require((named["actors"] as? [[String: Any]])?.first)
        #expect(share["pendingCount"] as? Int == 2 && share["ownTransactionsAfterPosition"] as? Int == 1)
    }

    @Test func tokenLiteralsWhereverATokenGoes() throws {
        let store = dir + "/Tasks.sqlite"
        let literal = "\(Scenarios.appGroupUUID):31"
        let bare = try CLI.run(["actors", store, "--token", literal, "--now", now]).json()
        #expect((bare["actors"] as? [[String: Any]])?.first?["actor"] as? String == literal)
        #expect((bare["actors"] as? [[String: Any]])?.first?["tokenTransactionNumber"] as? Int == 31)
        #expect((bare["sources"] as? [[String: Any]])?.first?["kind"] as? String == "token literal")
        let named = try CLI.run(["actors", store, "--token", "app=\(literal)", "--now", now]).json()
        #expect((named["actors"] as? [[String: Any]])?.first?["actor"] as? String == "app")
        let purge = try CLI.run(["purge", store, "--before", "token:\(Scenarios.appGroupUUID):20"]).json()
        #expect(purge["transactionCount"] as? Int == 19 && purge["lastTransactionNumber"] as? Int == 19)
        let expired = try CLI.run([
            "check", Repository.fixtures + "/Purged/Tasks.sqlite", "--token", "widget=\(Scenarios.purgedUUID):15",
            "--rule", "actor-expired",
        ])
        #expect(expired.status == 1)
        #expect(try (expired.json()["findings"] as? [[String: Any]])?.first?["rule"] as? String == "actor-expired")
        // Not a file and not a literal: the file is missing, said as a position's token:FILE and `cdhist token` say it.
        let missing = try CLI.run(["actors", store, "--token", "nothing-here.data"])
        #expect(missing.status == 2 && missing.stderr == "cdhist: nothing-here.data: no such token file\n")
        for other in [["token", "nothing-here.data"], ["transactions", store, "--after", "token:nothing-here.data"]] {
            let said = try CLI.run(other)
            #expect(said.status == 2 && said.stderr == missing.stderr, "\(other): \(said.stderr)")
        }
        // Nor is a path with a colon a literal: it is a missing file too.
        let colon = try CLI.run(["actors", store, "--token", "w=/no/such:dir/token.data"])
        #expect(colon.status == 2 && colon.stderr == "cdhist: /no/such:dir/token.data: no such token file\n")
    }

    @Test(.enabled(if: RealStores.available)) func photosHasOneActorAndItsWriters() throws {
        let doc = try CLI.run(["actors", RealStores.photos, "--token", RealStores.photosToken]).json()
        let actors = try #require(doc["actors"] as? [[String: Any]])
        #expect(actors.count == 1)
        #expect(actors.first?["actor"] as? String == "HistoryToken")
        #expect(actors.first?["status"] as? String == "up-to-date")
        #expect(actors.first?["pendingCount"] as? Int == 0)
        let writers = try #require(doc["writers"] as? [[String: Any]])
        #expect(writers.count == 7)
        #expect(writers.filter { $0["family"] as? String == "coredata-migration" }.count == 3)
        #expect(writers.reduce(0) { $0 + ($1["transactions"] as? Int ?? 0) } == 516)
        // The table: one actor row, and one line for the writers with the migrations as one family.
        let table = try CLI.run(
            ["actors", RealStores.photos, "--token", RealStores.photosToken, "--format", "table"],
            environment: ["COLUMNS": "80"])
        let lines = table.lines
        #expect(lines.filter { $0.hasPrefix("HistoryToken ") }.count == 1)
        #expect(
            table.stdout.replacingOccurrences(of: "\n", with: " ")
                .contains(
                    """
                    6 authors write without a merge position (transactions: [0,0] 271, [0,1] 180, [1,0] 33, Core \
                    Data migration (3 authors) 3)
                    """
                ))
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    /// The writers' line counts what it leaves out in authors, with their transactions, so that the
    /// authors named and left out add up to the count it begins with; a name that is a number is quoted.
    @Test(.enabled(if: Corpus.available)) func theWritersLineAddsUp() throws {
        let store = try #require(Corpus.stores.first { $0.contains("/Test-14.6.0/") })
        let doc = try CLI.run(["actors", store]).json()
        let writers = try #require(doc["writers"] as? [[String: Any]]).filter { $0["author"] is String }
        let text = try CLI.run(["actors", store, "--format", "table"], environment: ["COLUMNS": "80"]).stdout
            .replacingOccurrences(of: "\n", with: " ")
        let line = try #require(
            text.range(
                of: "[0-9]+ authors write without a merge position \\(transactions: [^)]*\\)",
                options: .regularExpression
            ).map { String(text[$0]) })
        let named = line.components(separatedBy: "(transactions: ")[1].components(separatedBy: " and ")[0].components(
            separatedBy: ", "
        ).count
        let more = try #require(
            line.range(of: "and [0-9]+ more authors with [0-9]+", options: .regularExpression).map { String(line[$0]) })
        let numbers = more.split(separator: " ").compactMap { Int($0) }
        #expect(line.hasPrefix("\(writers.count) authors"), "\(line)")
        #expect(named + numbers[0] == writers.count, "\(line)")
        let shownTransactions = writers.map { $0["transactions"] as? Int ?? 0 }.sorted(by: >).prefix(named).reduce(0, +)
        #expect(
            shownTransactions + numbers[1] == writers.reduce(0) { $0 + ($1["transactions"] as? Int ?? 0) }, "\(line)")
        // A writer named by a number reads as a name, not as a count.
        let dir = try TemporaryDirectory()
        let copy = dir.file("Tasks.sqlite")
        try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/Tasks.sqlite", toPath: copy)
        let db = try DatabaseQueue(path: copy)
        try db.write { try $0.execute(sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = '1369' WHERE ZNAME = 'widget'") }
        try db.close()
        let numbered = try CLI.run(["actors", copy, "--format", "table"], environment: ["COLUMNS": "200"]).stdout
        #expect(numbered.contains("\"1369\" 7"), "\(numbered)")
    }

    /// `--all` lists each strategy on its own row with its rule, and every writer by name.
    @Test func allShowsEveryStrategyAndWriter() throws {
        let arguments = [
            "actors", Repository.fixtures + "/MergeState/Tasks.sqlite", "--defaults",
            Repository.fixtures + "/MergeState/phtk.plist",
            "--format", "table",
        ]
        let grouped = try CLI.run(arguments, environment: ["COLUMNS": "80"])
        let all = try CLI.run(arguments + ["--all"], environment: ["COLUMNS": "80"])
        #expect(grouped.status == 0 && all.status == 0, "\(grouped.stderr) \(all.stderr)")
        #expect(!grouped.lines.contains { $0.hasPrefix("    rule: ") })
        #expect(
            grouped.stdout.replacingOccurrences(of: "\n", with: " ").contains(
                "--all shows each strategy on its own row, with its rule."))
        let rules = all.lines.filter { $0.hasPrefix("    rule: ") }
        #expect(rules.count == CleanerStrategy.allCases.count, "\(all.stdout)")
        for strategy in CleanerStrategy.allCases {
            #expect(
                all.lines.contains {
                    $0.range(
                        of: "  \(NSRegularExpression.escapedPattern(for: strategy.rawValue))[¹²³⁴⁵]*$",
                        options: .regularExpression) != nil
                },
                "\(strategy.rawValue):\n\(all.stdout)")
        }
        #expect(!all.stdout.contains("--all shows"))
    }

    /// At 80 columns, `actors` with the Photos token fits 30 lines on each real store: the
    /// strategies that agree share a row, every strategy and count is in the table, and each
    /// note is said once. `--all` gives each strategy its own row, with its rule.
    @Test(
        .enabled(if: RealStores.available), arguments: [RealStores.photos, RealStores.photos15, RealStores.swiftData])
    func theCleanersTableSaysEachNoteOnce(store: String) throws {
        let arguments = ["actors", store, "--token", RealStores.photosToken]
        // Paths as a user in the stores' folder gives them: where the repository is checked out
        // changes the lines a wrapped path takes, not what is said.
        let folder =
            URL(fileURLWithPath: RealStores.photos).deletingLastPathComponent().deletingLastPathComponent().path + "/"
        let relative = arguments.map { $0.hasPrefix(folder) ? String($0.dropFirst(folder.count)) : $0 }
        let table = try CLI.run(
            [
                "-c",
                """
                cd '\(folder)' && COLUMNS=80 '\(CLI.products.path)/cdhist' \(relative.joined(separator: " ")) \
                --format table
                """,
            ],
            executable: "/bin/sh")
        let lines = table.lines
        #expect(table.status == 0 && lines.allSatisfy { $0.count <= 80 })
        #expect(lines.count <= 30, "\(lines.count) lines:\n\(table.stdout)")
        let start = try #require(lines.firstIndex(of: "Cleaner cut-offs now"))
        let cleaners = lines[start...].joined(separator: "\n")
        let flat = lines[start...].joined(separator: " ")
        let json = try #require(try CLI.run(arguments).json()["cleaners"] as? [[String: Any]])
        #expect(json.count == CleanerStrategy.allCases.count)
        for c in json {
            let name = try #require(c["strategy"] as? String)
            // Each strategy named in a row (followed by a comma, a mark or the line's end).
            #expect(
                lines[start...].contains {
                    $0.range(
                        of: "\\b\(NSRegularExpression.escapedPattern(for: name))(,|[¹²³⁴⁵]|$)",
                        options: .regularExpression) != nil
                },
                "\(name) missing:\n\(cleaners)")
            if let n = c["transactionsToDelete"] as? Int {
                #expect(
                    lines[start...].contains { $0.range(of: " \(n)[¹²³⁴⁵–]* ", options: .regularExpression) != nil },
                    "\(name): \(n) missing:\n\(cleaners)")
            }
        }
        for note in [
            "then resets every actor's key", "deletes only what HistoryToken wrote", "held back by HistoryToken",
        ] {
            #expect(flat.components(separatedBy: note).count <= 2, "\(note) said more than once:\n\(cleaners)")
        }
        #expect(flat.contains("then resets every actor's key"))
        // --all: a row and a rule per strategy.
        let all = try CLI.run(arguments + ["--format", "table", "--all"], environment: ["COLUMNS": "80"])
        #expect(
            all.lines.filter { $0.hasPrefix("    rule: ") }.count == CleanerStrategy.allCases.count, "\(all.stdout)")
        #expect(all.lines.allSatisfy { $0.count <= 80 })
    }

    @Test(.enabled(if: RealStores.available)) func familiesShareARowUnlessAll() throws {
        let grouped = try CLI.run(["authors", RealStores.photos, "--by", "author", "--format", "table"]).lines
        #expect(grouped.contains { $0.hasPrefix("Core Data migration (3 authors)") })
        #expect(!grouped.contains { $0.contains("schemamigrator") })
        let all = try CLI.run(["authors", RealStores.photos, "--by", "author", "--format", "table", "--all"]).lines
        // Each migration author on its own row, its digest shortened in the table.
        #expect(
            all.filter {
                $0.hasPrefix("com.apple.coredata.schemamigrator: lightweight migration from model with digest {")
            }.count == 3)
        #expect(all.contains { $0.contains("digest { 9H63MTM4… }") })
        // JSON keeps every author whole.
        let json = try #require(
            try CLI.run(["authors", RealStores.photos, "--by", "author"]).json()["authors"] as? [[String: Any]])
        #expect(
            json.contains {
                ($0["value"] as? String)?.contains(
                    "9H63MTM4MlsZ3c8d2necHTNDkmAZcDWWMqPLXUgixzWh1nN2ui4cUmBLiOOefkuiGcNW+QrfNoWWY9WVWcv0ZA==") == true
            })
        // A purge's long lists: the first rows, then how many more.
        let purge = try CLI.run(["purge", RealStores.photos, "--before", "tx:400", "--breakdown", "--format", "table"])
            .stdout
        #expect(purge.contains("… and 79 more (--all, or JSON)") && purge.contains("… and 16 more (--all, or JSON)"))
        #expect(
            !(try CLI.run([
                "purge", RealStores.photos, "--before", "tx:400", "--breakdown", "--format", "table", "--all",
            ]).stdout).contains("more (--all"))
    }

    @Test func sessionClearAndHelp() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        // In a script, clear writes nothing (no escape codes into a file).
        let script = try CLI.run([store, "-c", "clear", "-c", "info --format json"])
        #expect(script.status == 0 && script.stdout.hasPrefix("{\"format\""))
        // On a terminal, help wraps to its width.
        let binary = CLI.products.appendingPathComponent("cdhist").path
        let help = try CLI.run(
            ["-qec", "COLUMNS=60 \(binary) \(store) -c help", "/dev/null"], executable: "/usr/bin/script"
        ).stdout
        let lines = help.components(separatedBy: .newlines).filter { !$0.isEmpty }
        #expect(lines.contains { $0.hasPrefix("  clear, Ctrl-L") })
        #expect(lines.count > 30)
    }
}

/// What a review of the change found, each kept from coming back.
@Suite struct ReviewFindingTests {
    let dir = Repository.fixtures + "/MergeState"

    /// A table sized from its first 200 rows keeps later, wider dates whole.
    @Test func datesAfterTheFirstRowsStayWhole() throws {
        let tmp = try TemporaryDirectory()
        let store = tmp.file("Big.sqlite")
        #expect(
            try CLI.run(
                ["--transactions", "400", "--changes-per-transaction", "1", "--out", store],
                executable: "cdhist-fixtures"
            ).status == 0)
        let queue = try DatabaseQueue(path: store)
        try queue.write { try $0.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = NULL WHERE Z_PK <= 300") }
        try queue.close()
        let lines = try CLI.run(["transactions", store, "--format", "table", "--utc"], environment: ["COLUMNS": "80"])
            .lines
        #expect(lines.allSatisfy { $0.count <= 80 })
        let row = try #require(lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("350  ") })
        #expect(row.range(of: #"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z"#, options: .regularExpression) != nil, "\(row)")
    }

    @Test func columnsOfAnySizeNeitherTrapNorHang() throws {
        for columns in ["1", "4611686018427387904", "-5", "abc"] {
            let r = try CLI.run(
                ["timeline", Repository.fixtures + "/AppGroup/Tasks.sqlite", "--format", "table"],
                environment: ["COLUMNS": columns])
            #expect(r.status == 0, "COLUMNS=\(columns): \(r.stderr)")
        }
    }

    /// Wide characters take two cells; a table counts cells, not characters.
    @Test func wideCharactersFitTheWidth() throws {
        let name = "同期トークンの利用者"
        let r = try CLI.run(
            ["actors", dir + "/Tasks.sqlite", "--token", "\(name)=\(Scenarios.appGroupUUID):31", "--format", "table"],
            environment: ["COLUMNS": "60"])
        #expect(r.stdout.contains(name))
        func cells(_ s: String) -> Int {
            s.unicodeScalars.reduce(0) { $0 + ((0x3000...0x9FFF).contains($1.value) ? 2 : 1) }
        }
        #expect(r.lines.allSatisfy { cells($0) <= 60 }, "\(r.lines.filter { cells($0) > 60 })")
    }

    @Test func actorNamesAreChecked() throws {
        let empty = try CLI.run(["actors", dir + "/Tasks.sqlite", "--token", "=\(Scenarios.appGroupUUID):31"])
        #expect(empty.status == 2 && empty.stderr.contains("the actor's name before '=' is empty"))
        let cloudKit = try CLI.run([
            "actors", dir + "/Tasks.sqlite", "--token", "CloudKit export=\(Scenarios.appGroupUUID):31",
        ])
        #expect(cloudKit.status == 2 && cloudKit.stderr.contains("is CloudKit's exporter"))
    }

    /// A token naming a transaction beyond the newest is an older copy of the store, not a purge.
    @Test func aTokenAheadOfTheStore() throws {
        let doc = try CLI.run(["actors", dir + "/Tasks.sqlite", "--token", "app=\(Scenarios.appGroupUUID):90"]).json()
        let app = try #require((doc["actors"] as? [[String: Any]])?.first)
        #expect(app["status"] as? String == "expired")
        #expect(
            (app["explanation"] as? String)?.contains(
                """
                (transaction #90) is beyond the newest transaction (#34): the store was restored from an older \
                copy or replaced
                """
            ) == true)
    }

    /// A purge that breaks an actor says --execute refuses it, and which cut-off would not.
    @Test func thePreviewSaysWhatExecuteWouldDo() throws {
        let table = try CLI.run([
            "purge", dir + "/Tasks.sqlite", "--before", "tx:32", "--token", "app=" + dir + "/token.data", "--format",
            "table",
        ]).stdout
        #expect(table.contains("Breaks:       app (expired): its token names #31, which this purge deletes"))
        #expect(
            table.contains(
                """
                --execute refuses a purge that breaks an actor unless --allow-expire; --before tx:31 breaks none \
                of them
                """
            ))
        let none = try CLI.run(["purge", dir + "/Tasks.sqlite", "--before", "tx:32", "--format", "table"]).stdout
        #expect(none.contains("Breaks:       nothing cdhist knows of: no actor given"))
    }
}
