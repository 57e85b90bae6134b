import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// provoke puts a copy of a store into each failure, check names it, and --undo puts every byte back.
@Suite(.tags(.slow)) struct ProvokeTests {
    /// One provocation: the fixture folder it works on, its arguments (merge state and actor), the
    /// actor check names, and the rule.
    struct Case: CustomTestStringConvertible, Sendable {
        var folder: String
        var scenario: String
        var mergeState: [String]
        var actor: String?
        var extra: [String] = []
        var testDescription: String { "\(scenario) \(actor ?? "") \(mergeState.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(folder: "MergeState", scenario: "expired-token", mergeState: ["--token", "app=token.data"], actor: "app"),
        Case(
            folder: "MergeState", scenario: "missed-changes", mergeState: ["--defaults", "phtk.plist"],
            actor: "shareExtension"),
        Case(
            folder: "MergeState", scenario: "foreign-token", mergeState: ["--defaults", "tokens.plist"],
            actor: "lastHistoryToken"),
        Case(folder: "MergeState", scenario: "foreign-token", mergeState: ["--token", "app=token.data"], actor: "app"),
        Case(
            folder: "MergeState", scenario: "corrupt-token", mergeState: ["--defaults", "phtk.plist"], actor: "widget"),
        Case(
            folder: "MergeState", scenario: "corrupt-token", mergeState: ["--defaults", "xml.plist"], actor: "widget"),
        Case(folder: "MergeState", scenario: "corrupt-token", mergeState: ["--token", "app=token.data"], actor: "app"),
        Case(
            folder: "CloudKit", scenario: "foreign-token", mergeState: ["--defaults", "swiftdata.plist"], actor: "app"),
        Case(
            folder: "CloudKit", scenario: "corrupt-token", mergeState: ["--defaults", "swiftdata.plist"], actor: "app"),
        Case(
            folder: "CloudKit", scenario: "corrupt-token", mergeState: ["--token", "sd=swiftdata-token.json"],
            actor: "sd"),
        Case(
            folder: "CloudKit", scenario: "expired-token", mergeState: ["--token", "sd=swiftdata-token.json"],
            actor: "sd"),
        Case(folder: "CloudKit", scenario: "cloudkit-reset", mergeState: [], actor: nil),
    ]

    /// A copy of the fixture `folder`, writable (the shared stores are read-only).
    static func copy(_ folder: String, from root: String = Repository.fixtures) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        for name in try fm.contentsOfDirectory(atPath: root + "/" + folder) {
            try fm.copyItem(atPath: root + "/" + folder + "/" + name, toPath: dir.file(name))
            try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir.file(name))
        }
        return dir
    }

    /// The error findings `check` reports, as rule and actor.
    static func errors(_ store: String, _ mergeState: [String]) throws -> (status: Int32, findings: [String]) {
        let r = try CLI.run(["check", store] + mergeState)
        let findings = (try r.json()["findings"] as? [[String: Any]]) ?? []
        return (
            r.status,
            findings.filter { $0["severity"] as? String == "error" }
                .map { "\($0["rule"] as? String ?? "") \((($0["data"] as? [String: Any])?["actor"] as? String) ?? "")" }
        )
    }

    @Test(arguments: cases) func eachScenarioLeavesItsRuleAndUndoRestoresEveryByte(_ c: Case) throws {
        let dir = try Self.copy(c.folder)
        let store = dir.file("Tasks.sqlite")
        let mergeState = c.mergeState.map {
            $0.contains(".") && !$0.hasPrefix("-") && !$0.contains("=") ? dir.file($0) : $0
        }
        .map {
            $0.contains("=")
                ? String($0.prefix { $0 != "=" }) + "=" + dir.file(String($0.drop { $0 != "=" }.dropFirst())) : $0
        }
        let args = ["provoke", c.scenario, store] + mergeState + (c.actor.map { ["--actor", $0] } ?? []) + c.extra
        let before = try DirectoryState(dir.path)
        let rule = try #require(ProvokeScenario(rawValue: c.scenario)?.checkRule)
        let actor = c.actor ?? MirroringState.exportActorName
        #expect(
            try !Self.errors(store, mergeState).findings.contains("\(rule) \(actor)"), "\(rule) before the provocation")

        let preview = try CLI.run(args)
        #expect(preview.status == 0, "\(preview.stderr)")
        let planned = try preview.json()
        #expect(
            planned["kind"] as? String == "provoke" && planned["executed"] as? Bool == false
                && planned["checkRule"] as? String == rule)
        #expect(try DirectoryState(dir.path) == before, "the preview changed a file")

        let plists = mergeState.filter { $0.hasSuffix(".plist") }
        let formats = try plists.map {
            try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))))
        }
        let run = try CLI.run(args + ["--execute"])
        #expect(run.status == 0, "\(run.stderr)")
        // A rewritten plist keeps its format and every key.
        for (plist, before) in zip(plists, formats) {
            let after = try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: plist))))
            #expect(
                after.format == before.format
                    && Set(after.value.dictionaryValue?.keys ?? [:].keys)
                        == Set(before.value.dictionaryValue?.keys ?? [:].keys)
            )
        }
        let done = try run.json()
        #expect(done["executed"] as? Bool == true)
        let files = try #require(done["files"] as? [[String: Any]])
        #expect(files.contains { $0["backup"] is String && $0["sha256"] is String })
        #expect(try DirectoryState(dir.path) != before)
        let checked = try Self.errors(store, mergeState)
        #expect(checked.status == 1)
        #expect(checked.findings.contains("\(rule) \(actor)"), "\(checked.findings)")

        let again = try CLI.run(args + ["--execute"])
        #expect(
            again.status != 0 && again.stderr.contains("--undo"), "a second provocation before undo: \(again.stderr)")

        let undo = try CLI.run(["provoke", "--undo", store])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try undo.json()["kind"] as? String == "provoke-undo")
        #expect(try DirectoryState(dir.path) == before, "undo left a difference")
    }

    /// The App Group folder as the simulator keeps it: the store, its shared defaults and a token
    /// file found with --group-container, the store too.
    @Test(arguments: [
        ("expired-token", "token"), ("missed-changes", "widget"), ("corrupt-token", "app"), ("behind", "token"),
    ])
    func inTheAppGroupFolder(_ scenario: String, _ actor: String) throws {
        let dir = try Self.copy("GroupContainer")
        let group = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first.map(dir.file))
        let store = group + "/Library/Application Support/Tasks.sqlite"
        let before = try DirectoryState(dir.path)
        let run = try CLI.run(["provoke", scenario, "--group-container", group, "--actor", actor, "--execute"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.json()["store"] as? String == store)
        if let rule = ProvokeScenario(rawValue: scenario)?.checkRule {
            #expect(try Self.errors(store, ["--group-container", group]).findings.contains("\(rule) \(actor)"))
        }
        #expect(try DirectoryState(dir.path) != before)
        // The copies beside the store are cdhist's, not the app's: neither stores nor --group-container takes them for
        // it, nor are the copied token and plist read as merge state found beside the store.
        #expect(try CLI.run(["stores", dir.path, "--names"]).lines == [store])
        let actors = try CLI.run(["actors", store]).json()["actors"] as? [[String: Any]] ?? []
        #expect(Set(actors.compactMap { $0["actor"] as? String }) == ["app", "widget", "token"])
        let undo = try CLI.run(["provoke", "--undo", "--group-container", group])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try DirectoryState(dir.path) == before)
    }

    /// The documented loop is provoke, relaunch the app, check, undo: an undo after the app wrote would throw away
    /// what it wrote. It is refused, naming what would be lost, and nothing is put back; --force puts every byte back.
    @Test func anUndoAfterTheAppWroteIsRefusedUnlessForced() throws {
        let dir = try Self.copy("MergeState")
        let store = dir.file("Tasks.sqlite")
        let before = try DirectoryState(dir.path)
        let run = try CLI.run([
            "provoke", "expired-token", store, "--actor", "app", "--token", "app=" + dir.file("token.data"),
            "--execute",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // The app relaunches and saves: one transaction more.
        let queue = try DatabaseQueue(path: store)
        let newest = try queue.write { db -> Int64 in
            try db.execute(
                sql: """
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZTIMESTAMP)
                    SELECT MAX(Z_PK) + 1, Z_ENT, 1, ZAUTHOR, MAX(ZTIMESTAMP) + 1 FROM ATRANSACTION
                    """)
            return try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0
        }
        try queue.close()
        let written = try DirectoryState(dir.path)
        // The preview names the files it would put back and what was written since, and changes nothing.
        let files = ["\(store)", "\(store)-wal", "\(store)-shm", dir.file("token.data")].map(FileStatus.resolvedPath)
        for force in [false, true] {
            let preview = try CLI.run(["provoke", "--undo", store, "--preview"] + (force ? ["--force"] : []))
            #expect(preview.status == 0, "\(preview.stderr)")
            let document = try preview.json()
            #expect(document["executed"] as? Bool == false)
            let paths = Set((document["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
            #expect(paths.isSubset(of: Set(files)) && paths.contains(FileStatus.resolvedPath(store)), "\(paths)")
            let since = try #require(document["discarded"] as? [String: Any])
            #expect(since["transactions"] as? [Int] == [Int(newest)])
            let text = try CLI.run(
                ["provoke", "--undo", store, "--preview", "--format", "table"] + (force ? ["--force"] : []),
                environment: ["COLUMNS": "1000"])
            #expect(
                text.stdout.contains(force ? "What was written since would be gone" : "--undo refuses to lose it"),
                "\(text.stdout)")
            #expect(try DirectoryState(dir.path) == written, "a preview changed a file")
        }
        let misplacedPreview = try CLI.run(["provoke", "expired-token", store, "--actor", "app", "--preview"])
        #expect(misplacedPreview.status == 2 && misplacedPreview.stderr.contains("--preview goes with --undo"))
        let refused = try CLI.run(["provoke", "--undo", store])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("undoing would lose 1 transaction written since (#\(newest)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("cdhist provoke --undo STORE --force"), "\(refused.stderr)")
        #expect(try DirectoryState(dir.path) == written, "a refused undo changed a file")
        let forced = try CLI.run(["provoke", "--undo", store, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try forced.json()["executed"] as? Bool == true)
        let discarded = try #require(try forced.json()["discarded"] as? [String: Any])
        #expect(discarded["transactions"] as? [Int] == [Int(newest)] && discarded["transactionCount"] as? Int == 1)
        #expect(try DirectoryState(dir.path) == before, "a forced undo left a difference")
        // --force is only for an undo.
        let misplaced = try CLI.run(["provoke", "expired-token", store, "--actor", "app", "--force"])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--force goes with --undo"), "\(misplaced.stderr)")
    }

    /// In a session the session's store is the one provoked, and undone, with the session open on it.
    @Test func inASession() throws {
        let dir = try Self.copy("MergeState")
        let before = try DirectoryState(dir.path)
        let token = "app=" + dir.file("token.data")
        let r = try CLI.run([
            "repl", dir.file("Tasks.sqlite"), "-c", "provoke expired-token --actor app --token \(token) --execute",
            "-c", "actors --token \(token)", "-c", "provoke --undo",
        ])
        #expect(
            r.stdout.contains("\"kind\":\"provoke\"") && r.stdout.contains("\"status\":\"expired\"")
                && r.stdout.contains("\"kind\":\"provoke-undo\""),
            "\(r.stdout)\(r.stderr)")
        #expect(try DirectoryState(dir.path) == before)
    }

    /// A purge stopped before its commit changes nothing: the copies go. Stopped after it, the store
    /// is changed: the copies stay, and the error says how to put it back.
    @Test func aStoppedProvocationKeepsItsCopiesOnlyWhenItChangedSomething() throws {
        let dir = try Self.copy("MergeState")
        let store = dir.file("Tasks.sqlite")
        let args = [
            "provoke", "expired-token", store, "--actor", "app", "--token", "app=" + dir.file("token.data"),
            "--execute",
        ]
        let before = try DirectoryState(dir.path)
        let early = try CLI.run(args, environment: ["CDHIST_FAULT": "term:before-commit"])
        #expect(early.status == 2 && early.stderr.contains("interrupted"), "\(early.stderr)")
        #expect(try DirectoryState(dir.path) == before)
        let late = try CLI.run(args, environment: ["CDHIST_FAULT": "term:after-commit"])
        #expect(
            late.status == 2 && late.stderr.contains("the files it changed are copied in")
                && late.stderr.contains("provoke --undo"), "\(late.stderr)")
        #expect(try DirectoryState(dir.path) != before)
        #expect(try CLI.run(["provoke", "--undo", store]).status == 0)
        #expect(try DirectoryState(dir.path) == before)
    }

    /// Undo changes only the store's files and the one merge-state file a provocation rewrites; a
    /// manifest naming anything else is refused before any file changes. Copies never finished
    /// (no manifest: nothing was changed yet) are removed.
    @Test func undoRefusesAManifestNamingOtherFiles() throws {
        let dir = try Self.copy("MergeState")
        let store = dir.file("Tasks.sqlite")
        let folder = store + ".cdhist-provoke"
        let victim = dir.file("notes.txt")
        try "keep me\n".write(toFile: victim, atomically: true, encoding: .utf8)
        #expect(
            try CLI.run([
                "provoke", "corrupt-token", store, "--actor", "app", "--token", "app=" + dir.file("token.data"),
                "--execute",
            ]).status == 0)
        let manifest = folder + "/manifest.json"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(original.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        for (entry, why) in [
            (["path": victim], "names files that are not the store's"),
            (
                ["path": victim, "copy": "1-token.data", "sha256": files[0]["sha256"] ?? ""],
                "names files that are not the store's"
            ),
            (["path": store + "-wal", "copy": "../notes.txt"], "names a copy outside its folder"),
        ] {
            var hostile = json
            hostile["files"] = files + [entry]
            try JSONSerialization.data(withJSONObject: hostile).write(to: URL(fileURLWithPath: manifest))
            let before = try DirectoryState(dir.path)
            let r = try CLI.run(["provoke", "--undo", store])
            #expect(r.status == 2 && r.stderr.contains(why), "\(r.stderr)")
            #expect(try DirectoryState(dir.path) == before)
        }
        try original.write(toFile: manifest, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["provoke", "--undo", store]).status == 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")

        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: store, toPath: folder + "/1-Tasks.sqlite")
        let unfinished = try CLI.run(["provoke", "--undo", store])
        #expect(unfinished.status == 0)
        #expect(try unfinished.json()["unfinished"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func expiredTokenDeletesExactlyThroughTheTokensTransaction() throws {
        let dir = try Self.copy("MergeState")
        let store = dir.file("Tasks.sqlite")
        let token = ["--token", "app=" + dir.file("token.data")]
        let n = try #require(
            try TokenSpec.token(fileOrLiteral: dir.file("token.data")).transactionNumber(
                forStore: Scenarios.appGroupUUID))
        let preview = try CLI.run(["provoke", "expired-token", store, "--actor", "app"] + token).json()
        #expect(preview["transactionsDeleted"] as? Int == Int(n))
        let range = try #require(preview["deletedRange"] as? [String: Any])
        #expect(range["first"] as? Int == 1 && range["last"] as? Int == Int(n))
        let expected = try #require(preview["expectedAtLaunch"] as? [String: Any])
        #expect(
            expected["code"] as? Int == 134301 && expected["name"] as? String == "NSPersistentHistoryTokenExpiredError")

        // Deleting through N−1 leaves the token valid: its own transaction is still there.
        let purge = try CLI.run(
            ["purge", store, "--before", "tx:\(n)", "--execute", "--no-backup", "--yes", "--allow-expire"] + token)
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(try !Self.errors(store, token).findings.contains("actor-expired app"))
        let actors = try CLI.run(["actors", store] + token).json()
        let app = try #require((actors["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "app" })
        #expect(app["status"] as? String != "expired" && app["lastMergedTransaction"] as? Int == Int(n))

        // Then the provocation deletes the one transaction left through N, and no other.
        let run = try CLI.run(["provoke", "expired-token", store, "--actor", "app", "--execute"] + token).json()
        #expect(run["transactionsDeleted"] as? Int == 1)
        #expect(try Self.errors(store, token).findings.contains("actor-expired app"))
        let left = try CLI.run(["transactions", store, "--limit", "1"]).json()
        #expect(((left["transactions"] as? [[String: Any]])?.first?["transactionNumber"] as? Int) == Int(n) + 1)
    }

    @Test func behindMovesTheActorBackByTheTransactionsAsked() throws {
        for (actor, mergeState) in [
            ("app", ["--token", "app=token.data"]), ("shareExtension", ["--defaults", "phtk.plist"]),
        ] {
            let dir = try Self.copy("MergeState")
            let store = dir.file("Tasks.sqlite")
            let given = mergeState.map {
                $0.hasPrefix("-") ? $0 : ($0.contains("=") ? "app=" + dir.file("token.data") : dir.file($0))
            }
            func merged() throws -> Int? {
                let json = try CLI.run(["actors", store] + given).json()
                return (json["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == actor }?[
                    "lastMergedTransaction"] as? Int
            }
            let before = try #require(try merged())
            let numbers =
                try CLI.run(["transactions", store, "--before", "tx:\(before)"]).json()["transactions"]
                as? [[String: Any]] ?? []
            let expected = try #require(
                numbers.compactMap { $0["transactionNumber"] as? Int }.sorted().dropLast(1).last)
            let tooFar = try CLI.run(["provoke", "behind", store, "--actor", actor, "--by", "1000"] + given)
            #expect(tooFar.status == 2 && tooFar.stderr.contains("only"), "\(tooFar.stderr)")
            let run = try CLI.run(["provoke", "behind", store, "--actor", actor, "--by", "2", "--execute"] + given)
            #expect(run.status == 0, "\(run.stderr)")
            let after = try merged()
            #expect(
                after == expected, "\(actor) moved from #\(before) to #\(String(describing: after)), not #\(expected)")
        }
    }

    /// A token already expired is refused with why, as check says it: beyond the newest transaction (a store
    /// restored from an older copy) is not "gone"; purged says where history now starts.
    @Test func anExpiredTokenIsRefusedWithWhatCheckSays() throws {
        let dir = try Self.copy("AppGroup")
        let store = dir.file("Tasks.sqlite")
        let token = dir.file("token.data")
        try Data(HistoryTokenDecoder.encode(HistoryToken(storeUUID: Scenarios.appGroupUUID, transactionNumber: 99)))
            .write(to: URL(fileURLWithPath: token))
        let mergeState = ["--token", "app=" + token]
        let why =
            "its token (transaction #99) is beyond the newest transaction (#34): the store was restored from an "
            + "older copy"
        let provoke = try CLI.run(["provoke", "expired-token", store, "--actor", "app"] + mergeState)
        let refused = "cdhist: \(store): 'app' is expired already: \(why)"
        #expect(provoke.status == 2 && provoke.stderr.hasPrefix(refused), "\(provoke.stderr)")
        let check = try CLI.run(["check", store, "--format", "table"] + mergeState, environment: ["COLUMNS": "1000"])
        #expect(check.status == 1 && check.stdout.contains("app: \(why)"), "\(check.stdout)")

        let purged = Repository.fixtures + "/Purged"
        let gone = try CLI.run([
            "provoke", "expired-token", purged + "/Tasks.sqlite", "--actor", "widget",
            "--token", "widget=" + purged + "/widget-token.data",
        ])
        let purgedWhy =
            "'widget' is expired already: its token (transaction #15) was purged (the oldest remaining is "
            + "#21)"
        #expect(gone.status == 2 && gone.stderr.contains(purgedWhy), "\(gone.stderr)")
    }

    @Test func refusesWhatCannotHappenAndAStoreInUse() throws {
        let dir = try Self.copy("MergeState")
        let store = dir.file("Tasks.sqlite")
        let phtk = ["--defaults", dir.file("phtk.plist")]
        let before = try DirectoryState(dir.path)
        let date = try CLI.run(["provoke", "expired-token", store, "--actor", "widget", "--execute"] + phtk)
        #expect(date.status != 0 && date.stderr.contains("keeps a date, which never expires"))
        let unknown = try CLI.run(["provoke", "corrupt-token", store, "--actor", "nobody"] + phtk)
        #expect(
            unknown.status != 0 && unknown.stderr.contains("no merge position of actor 'nobody'")
                && unknown.stderr.contains("widget"))
        let noScenario = try CLI.run(["provoke", "expire", store])
        #expect(noScenario.status != 0 && noScenario.stderr.contains("unknown scenario 'expire'"))
        let noMirror = try CLI.run(["provoke", "cloudkit-reset", dir.file("Tasks.sqlite")])
        #expect(noMirror.status != 0 && noMirror.stderr.contains("no CloudKit mirroring"))
        let nothing = try CLI.run(["provoke", "--undo", store])
        #expect(nothing.status != 0 && nothing.stderr.contains("nothing to undo"))
        #expect(try DirectoryState(dir.path) == before)
        guard LockHolder.available else { return }
        // An app with the store open (a reader in WAL mode holds the -shm's lock).
        let holder = try LockHolder(path: store, statement: "BEGIN IMMEDIATE")
        defer { holder.release() }
        let busy = try CLI.run(["provoke", "corrupt-token", store, "--actor", "widget", "--execute"] + phtk)
        #expect(busy.status != 0 && busy.stderr.contains("another process has the store open"), "\(busy.stderr)")
        #expect(FileManager.default.fileExists(atPath: store + ".cdhist-provoke") == false)
    }

    /// Every actor scenario on copies of the other real stores, with merge state written for them: a
    /// SwiftData JSON token or a token archive, and a date in shared defaults, both a few transactions back.
    @Test(.enabled(if: RealStores.available), arguments: ["swiftdata-resources", "photos-15.4.1"])
    func everyActorScenarioOnTheOtherRealStores(_ folder: String) throws {
        let root = try #require(RealStores.directory)
        for scenario in ["expired-token", "missed-changes", "behind", "foreign-token", "corrupt-token"] {
            let dir = try Self.copy(folder, from: root)
            let store = try #require(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).first {
                    $0.hasSuffix(".store") || $0.hasSuffix(".sqlite")
                })
            let path = dir.file(store)
            let info = try CLI.run(["info", path]).json()
            let uuid = try #require(info["storeID"] as? String)
            let last = try #require(info["lastTransactionNumber"] as? Int)
            let n = last - 3
            let tx = try CLI.run(["show", path, String(n)]).json()
            let date = try #require(
                (tx["transaction"] as? [String: Any])?["cocoaTimestamp"] as? Double ?? tx["cocoaTimestamp"] as? Double)
            if folder.hasPrefix("swiftdata") {
                try #"{"storeTokens":{"\#(uuid)":\#(n)},"version":1}"#.write(
                    toFile: dir.file("token.json"), atomically: true, encoding: .utf8)
            } else {
                try Data(HistoryTokenDecoder.encode(HistoryToken(storeUUID: uuid, transactionNumber: Int64(n)))).write(
                    to: URL(fileURLWithPath: dir.file("token.json")))
            }
            try Data(
                PropertyList.encodeBinary(.dictionary(["PersistentHistoryTrackingKit.lastToken.reader": .date(date)]))
            )
            .write(to: URL(fileURLWithPath: dir.file("defaults.plist")))
            let mergeState = ["--token", "app=" + dir.file("token.json"), "--defaults", dir.file("defaults.plist")]
            let actor = scenario == "missed-changes" ? "reader" : "app"
            let before = try DirectoryState(dir.path)
            #expect(try CLI.run(["provoke", scenario, path, "--actor", actor] + mergeState).status == 0)
            #expect(try DirectoryState(dir.path) == before, "\(folder) \(scenario): the preview changed a file")
            let run = try CLI.run(["provoke", scenario, path, "--actor", actor, "--execute"] + mergeState)
            #expect(run.status == 0, "\(folder) \(scenario): \(run.stderr)")
            if scenario == "expired-token" {
                #expect(
                    try run.json()["deletedRange"] as? [String: Any] != nil
                        && (try run.json()["deletedRange"] as? [String: Any])?["last"] as? Int == n)
            }
            if let rule = ProvokeScenario(rawValue: scenario)?.checkRule {
                #expect(
                    try Self.errors(path, mergeState).findings.contains("\(rule) \(actor)"), "\(folder) \(scenario)")
            } else {
                let actors = try CLI.run(["actors", path] + mergeState).json()["actors"] as? [[String: Any]]
                #expect(
                    actors?.first { $0["actor"] as? String == actor }?["lastMergedTransaction"] as? Int == n - 1,
                    "\(folder) behind")
            }
            #expect(try CLI.run(["provoke", "--undo", path]).status == 0)
            #expect(try DirectoryState(dir.path) == before, "\(folder) \(scenario): undo left a difference")
        }
    }

    @Test(.enabled(if: RealStores.available)) func realPhotosStoreAndItsTokenFile() throws {
        let root = try #require(RealStores.directory)
        for scenario in ["expired-token", "foreign-token", "corrupt-token"] {
            let dir = try Self.copy("photos-10.15.7", from: root)
            let store = dir.file("Photos.sqlite")
            let token = ["--token", "photos=" + dir.file("HistoryToken.plist")]
            let before = try DirectoryState(dir.path)
            let run = try CLI.run(["provoke", scenario, store, "--actor", "photos", "--execute"] + token)
            #expect(run.status == 0, "\(scenario): \(run.stderr)")
            if scenario == "expired-token" {
                // The token names #516, the newest transaction (the -wal's included): all of history goes, nothing after.
                #expect(try run.json()["transactionsDeleted"] as? Int == 516)
            }
            let rule = try #require(ProvokeScenario(rawValue: scenario)?.checkRule)
            #expect(try Self.errors(store, token).findings.contains("\(rule) photos"))
            #expect(try CLI.run(["provoke", "--undo", store]).status == 0)
            #expect(try DirectoryState(dir.path) == before, "\(scenario): undo left a difference")
        }
    }
}
