import Foundation
import HistoryKit
import TestSupport
import Testing

/// `actors` and `purge` answer "whom does this purge break" with one function: for every
/// cleaner strategy, on every shared store and fixture scenario, the breaks `actors` gives a
/// strategy are the consequences `purge --strategy` gives.
@Suite(.tags(.slow)) struct OneTruthTests {
    /// A store and the merge-state options that go with it.
    struct Scenario: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var testDescription: String { name }
    }

    static let now = ["--now", "2025-03-06T09:00:00Z"]

    static var scenarios: [Scenario] {
        let f = Repository.fixtures
        let m = f + "/MergeState"
        var all = ["phtk", "xml", "tracker", "studapp", "swiftlee", "appwise", "stale", "tokens"].map {
            Scenario(
                name: "MergeState \($0).plist",
                arguments: [m + "/Tasks.sqlite", "--defaults", m + "/\($0).plist", "--actor", "app"])
        }
        all += ["token", "corrupt-token", "foreign-token", "multi-store-token"].map {
            Scenario(
                name: "MergeState \($0).data",
                arguments: [m + "/Tasks.sqlite", "--token", m + "/\($0).data", "--defaults", m + "/phtk.plist"])
        }
        all += [
            Scenario(
                name: "Purged",
                arguments: [
                    f + "/Purged/Tasks.sqlite", "--defaults", f + "/Purged/defaults.plist", "--token",
                    f + "/Purged/widget-token.data",
                ]),
            Scenario(
                name: "CloudKit",
                arguments: [
                    f + "/CloudKit/Tasks.sqlite", "--defaults", f + "/CloudKit/swiftdata.plist",
                    "--token", f + "/CloudKit/swiftdata-token.json",
                ]),
            Scenario(
                name: "GroupContainer",
                arguments: [
                    f + "/GroupContainer/3C9A1E57-8B2D-4F60-9E14-A7D5C2B8F031/Library/Application Support/Tasks.sqlite",
                    "--group-container", f + "/GroupContainer/3C9A1E57-8B2D-4F60-9E14-A7D5C2B8F031",
                ]),
            Scenario(
                name: "AppGroup declared",
                arguments: [f + "/AppGroup/Tasks.sqlite", "--actor", "app", "--actor", "widget"]),
            Scenario(
                name: "WALPending declared",
                arguments: [f + "/WALPending/Tasks.sqlite", "--actor", "app", "--batch-actor", "widget"]),
        ]
        if RealStores.available {
            all += [RealStores.photos, RealStores.photos15, RealStores.swiftData].map {
                Scenario(
                    name: URL(fileURLWithPath: $0).deletingLastPathComponent().lastPathComponent,
                    arguments: [$0, "--token", RealStores.photosToken])
            }
        }
        return all
    }

    @Test(arguments: scenarios)
    func actorsBreaksAreThePurgePreviewsConsequences(_ scenario: Scenario) throws {
        let (compared, _) = try compare(scenario.name, scenario.arguments, now: Self.now)
        #expect(compared > 0, "\(scenario.name): no strategy purges")
    }

    /// `token FILE --store STORE` gives every token of every token file and plist of a scenario the
    /// status `actors` gives its actor (a plist of dates only is no token file: token refuses it).
    @Test(arguments: scenarios)
    func tokenGivesEachTokenTheStatusActorsGivesIt(_ scenario: Scenario) throws {
        let store = scenario.arguments[0]
        let actors = try #require(
            try CLI.run(["actors"] + scenario.arguments + Self.now + ["--format", "json"]).json()["actors"]
                as? [[String: Any]])
        var status: [String: String] = [:]
        for a in actors { if let name = a["actor"] as? String { status[name] = a["status"] as? String } }
        let files = zip(scenario.arguments, scenario.arguments.dropFirst()).filter {
            ["--token", "--defaults"].contains($0.0)
        }
        var compared = 0
        for (option, file) in files {
            let r = try CLI.run(["token", file, "--store", store])
            if r.status == 2 {
                #expect(option == "--defaults" && r.stderr.contains("not a token file"), "\(file): \(r.stderr)")
                continue
            }
            let tokens = try #require(try r.json()["tokens"] as? [[String: Any]])
            // Given with --token, a file holds one token, of the actor its file name names.
            if option == "--token" { #expect(tokens.count == 1, "\(file)") }
            for t in tokens {
                let actor =
                    option == "--token"
                    ? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                    : try #require(t["actor"] as? String)
                #expect(t["status"] as? String == status[actor], "\(scenario.name) \(file) \(actor)")
                compared += 1
            }
            let broken = tokens.contains {
                ["expired", "foreign-token", "corrupt-token"].contains($0["status"] as? String ?? "")
            }
            #expect(r.status == (broken ? 1 : 0), "\(file)")
        }
        if scenario.arguments.contains("--token") || scenario.name == "MergeState tokens.plist" {
            #expect(compared > 0)
        }
    }

    /// `check`, `cloudkit` and the report judge each actor as `actors` does: every actor whose
    /// status is a failure has the finding of its status in `check` (and every finding of those
    /// rules names an actor of that status, `actor-behind` and `cloudkit-export-behind` one that
    /// is behind), `cloudkit`'s exporter has the status `actors` gives CloudKit's, and the
    /// report's table of actors shows each actor's status.
    @Test(arguments: scenarios)
    func checkCloudKitAndTheReportGiveEachActorTheStatusActorsGivesIt(_ scenario: Scenario) throws {
        let store = scenario.arguments[0]
        let actors = try #require(
            try CLI.run(["actors"] + scenario.arguments + Self.now + ["--format", "json"]).json()["actors"]
                as? [[String: Any]])
        var status: [String: String] = [:]
        var kind: [String: String] = [:]
        for a in actors {
            guard let name = a["actor"] as? String else { continue }
            status[name] = a["status"] as? String
            kind[name] = a["kind"] as? String
        }
        #expect(!status.isEmpty, "\(scenario.name): no actor")

        let check = try CLI.run(["check"] + scenario.arguments + Self.now + ["--format", "json"])
        let findings = try #require(try check.json()["findings"] as? [[String: Any]], "\(check.stderr)")
        var named: [String: Set<String>] = [:]
        for f in findings {
            guard let rule = f["rule"] as? String, let actor = (f["data"] as? [String: Any])?["actor"] as? String else {
                continue
            }
            named[rule, default: []].insert(actor)
        }
        let appRules = [
            "expired": "actor-expired", "missed-changes": "actor-missed-changes", "foreign-token": "foreign-token",
            "corrupt-token": "corrupt-token",
        ]
        for (rule, wanted) in appRules.map({ ($0.value, $0.key) }) {
            let apps = Set(status.filter { $0.value == wanted && kind[$0.key] == "app" }.keys)
            #expect(
                named[rule, default: []] == apps,
                "\(scenario.name): \(rule) names \(named[rule, default: []]), actors gives \(wanted) to \(apps)")
        }
        for actor in named["actor-behind", default: []] {
            #expect(status[actor] == "behind", "\(scenario.name): actor-behind names \(actor)")
        }
        let exporter = status.first { kind[$0.key] == "cloudkit" }
        #expect(
            named["cloudkit-expired", default: []]
                == Set(exporter.flatMap { $0.value == "expired" ? [$0.key] : [] } ?? []), "\(scenario.name)")
        for actor in named["cloudkit-export-behind", default: []] {
            #expect(
                ["behind", "never-merged"].contains(status[actor] ?? ""),
                "\(scenario.name): cloudkit-export-behind names \(actor)")
        }

        let cloudKit = try CLI.run(["cloudkit", store] + Self.now + ["--format", "json"])
        if let exporter, cloudKit.status == 0 {
            let shown = try cloudKit.json()["exporter"] as? [String: Any]
            #expect(
                shown?["status"] as? String == exporter.value,
                "\(scenario.name): cloudkit says \(shown?["status"] ?? "nothing")")
        }

        let dir = try TemporaryDirectory()
        let report = try CLI.run(["report"] + scenario.arguments + Self.now + ["--out", dir.file("report.html")])
        #expect(report.status == 0, "\(report.stderr)")
        let rows = HTMLPage(try String(contentsOfFile: dir.file("report.html"), encoding: .utf8)).rows(
            section: "actors", table: "Actors")
        #expect(rows.count == actors.count, "\(scenario.name)")
        for row in rows where row.count > 1 {
            // The status after its symbol (✓, ⚠ or ✕).
            #expect(
                row[1].split(separator: " ").last.map(String.init) == status[row[0]],
                "\(scenario.name): the report gives \(row[0]) \(row[1])")
        }
    }

    /// `provoke` and `purge` name the same actors and readers broken by the same deletion: for
    /// every actor not broken already that a purging scenario applies to (expired-token for a
    /// token, missed-changes for a date) on every fixture scenario, and on the Hazards store, whose model Spotlight indexes,
    /// `purge --before` the transactions the provocation deletes breaks the actor and the
    /// provocation's others, and may break the same readers.
    @Test(
        arguments: scenarios + [
            Scenario(
                name: "Hazards",
                arguments: [
                    Repository.fixtures + "/Hazards/Clipboard.sqlite",
                    "--token", Repository.fixtures + "/Hazards/swiftdata-tokens.json",
                ])
        ])
    func provokeBreaksWhomPurgeBreaksForTheSameDeletion(_ scenario: Scenario) throws {
        let actors = try #require(
            try CLI.run(["actors"] + scenario.arguments + Self.now + ["--format", "json"]).json()["actors"]
                as? [[String: Any]])
        var compared = 0
        for a in actors where a["kind"] as? String == "app" {
            guard let name = a["actor"] as? String, let status = a["status"] as? String,
                !["corrupt-token", "foreign-token", "expired", "missed-changes"].contains(status)
            else { continue }
            let provokeScenario = a["tokenTransactionNumber"] is Int ? "expired-token" : "missed-changes"
            let provoke = try CLI.run(
                ["provoke", provokeScenario] + scenario.arguments + Self.now + ["--actor", name, "--format", "json"])
            // Not applicable to this actor (said on stderr, tested in ProvokeTests).
            guard provoke.status == 0 else { continue }
            let plan = try provoke.json()
            let last = try #require(
                (plan["deletedRange"] as? [String: Any])?["last"] as? Int, "\(scenario.name) \(name)")
            let purge = try CLI.run(
                ["purge"] + scenario.arguments + Self.now + ["--before", "tx:\(last + 1)", "--format", "json"]
            ).json()
            let broken = Set(
                ((purge["consequences"] as? [[String: Any]]) ?? []).map { "\($0["actor"] ?? "") \($0["status"] ?? "")" }
            )
            let others = ((plan["alsoBreaks"] as? [[String: Any]]) ?? []).map {
                "\($0["actor"] ?? "") \($0["status"] ?? "")"
            }
            #expect(
                broken == Set(others).union(broken.filter { $0.hasPrefix(name + " ") })
                    && broken.contains { $0.hasPrefix(name + " ") },
                "\(scenario.name) \(name): purge breaks \(broken), provoke \(others)")
            let readers = { (doc: [String: Any]) in
                ((doc["hiddenReaders"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
            }
            #expect(readers(purge) == readers(plan), "\(scenario.name) \(name)")
            if scenario.name == "Hazards" { #expect(readers(plan) == ["Spotlight (NSCoreDataCoreSpotlightDelegate)"]) }
            compared += 1
        }
        if scenario.name == "Hazards" { #expect(compared > 0) }
    }

    /// For each strategy that cuts, `actors`' breaks against `purge --strategy`'s consequences:
    /// how many were compared, and how many of them break someone.
    private func compare(_ name: String, _ arguments: [String], now: [String]) throws -> (compared: Int, breaking: Int)
    {
        let actors = try CLI.run(["actors"] + arguments + now + ["--format", "json"])
        #expect(actors.status == 0, "\(actors.stderr)")
        let cleaners = try #require(try actors.json()["cleaners"] as? [[String: Any]])
        #expect(cleaners.count == CleanerStrategy.allCases.count)
        var compared = 0
        var breaking = 0
        for cleaner in cleaners where cleaner["cutoff"] is String || cleaner["allDates"] as? Bool == true {
            let strategy = try #require(cleaner["strategy"] as? String)
            let purge = try CLI.run(["purge"] + arguments + now + ["--strategy", strategy, "--format", "json"])
            #expect(purge.status == 0, "\(strategy): \(purge.stderr)")
            let consequences = try #require(try purge.json()["consequences"] as? [[String: Any]])
            let breaks = try #require(cleaner["breaks"] as? [[String: Any]])
            #expect(
                NSArray(array: consequences).isEqual(to: breaks),
                "\(name) \(strategy): purge \(consequences), actors \(breaks)")
            compared += 1
            if !breaks.isEmpty { breaking += 1 }
        }
        return (compared, breaking)
    }

    /// The same comparison where the cut-off falls within the second after an actor's date,
    /// read exactly from a binary plist and as a range from an XML plist's whole seconds: the
    /// strategies cutting at now − 7 days delete #300 (22:34:57.876), after the date (.5).
    @Test(.enabled(if: RealStores.available), arguments: [PropertyList.Format.binary, .xml])
    func breaksWithinTheSecondAfterADateAreTheSame(_ format: PropertyList.Format) throws {
        let dir = try TemporaryDirectory()
        try dir.copy(
            from: URL(fileURLWithPath: RealStores.photos).deletingLastPathComponent().path, prefix: "Photos.sqlite")
        let plist: PlistValue = .dictionary(["PersistentHistoryTrackingKit.lastToken.[1,0]": .date(624_666_897.5)])
        let bytes = format == .xml ? try PropertyList.encodeXML(plist) : PropertyList.encodeBinary(plist)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("d.plist")))
        let (compared, breaking) = try compare(
            "\(format)", [dir.file("Photos.sqlite"), "--defaults", dir.file("d.plist")],
            now: ["--now", "2020-10-24T22:34:58Z"])
        #expect(compared > 0 && breaking > 0, "\(format): \(compared) compared, \(breaking) breaking")
    }

    /// The case that showed two answers: a binary plist's date half a second before a
    /// transaction; `purge` used to add a second to every date and miss it.
    @Test(.enabled(if: RealStores.available)) func aPurgeThroughTheSecondAfterABinaryDateBreaksTheActor() throws {
        let dir = try TemporaryDirectory()
        try dir.copy(
            from: URL(fileURLWithPath: RealStores.photos).deletingLastPathComponent().path, prefix: "Photos.sqlite")
        let plist: PlistValue = .dictionary(["PersistentHistoryTrackingKit.lastToken.[1,0]": .date(624_666_897.5)])
        try Data(PropertyList.encodeBinary(plist)).write(to: URL(fileURLWithPath: dir.file("d.plist")))
        let store = dir.file("Photos.sqlite")
        let actor = try #require(
            (try CLI.run(["actors", store, "--defaults", dir.file("d.plist")]).json()["actors"] as? [[String: Any]])?
                .first)
        #expect(
            actor["lastMergedTransaction"] as? Int == 299 && actor["pendingCount"] as? Int == 197
                && actor["oldestPendingTransaction"] as? Int == 300)
        let purge = try CLI.run(["purge", store, "--before", "tx:302", "--defaults", dir.file("d.plist")]).json()
        let consequences = try #require(purge["consequences"] as? [[String: Any]])
        #expect(consequences.map { $0["actor"] as? String } == ["[1,0]"])
        #expect(consequences.first?["status"] as? String == "missed-changes")
        #expect(
            (consequences.first?["message"] as? String)?.hasPrefix(
                "the purge deletes 2 transactions it has not merged yet") == true, "\(consequences)")
    }
}
