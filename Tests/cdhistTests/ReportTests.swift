import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

/// `cdhist report`: one self-contained HTML file whose every number, name and
/// status is the one the other commands report, and that a browser shows.
@Suite(.tags(.slow)) struct ReportTests {
    static let mergeState = Repository.fixtures + "/MergeState"
    static let appGroup = Repository.fixtures + "/AppGroup/Tasks.sqlite"
    /// The App Group store with PersistentHistoryTrackingKit's positions of its three actors.
    static let appGroupArguments = [
        appGroup, "--defaults", mergeState + "/phtk.plist", "--actor", "app", "--actor", "widget",
        "--actor", "shareExtension", "--now", "2025-03-06T09:00:00Z", "--utc",
    ]

    /// Writes the report of `arguments` (a store and options) and returns its HTML.
    static func report(_ arguments: [String], in dir: TemporaryDirectory, name: String = "report.html") throws -> String
    {
        let out = dir.file(name)
        let r = try CLI.run(["report"] + arguments + ["--out", out])
        #expect(r.status == 0, "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    /// Nothing is fetched or run: no scheme, no script, no external reference.
    static func expectSelfContained(_ html: String) {
        for forbidden in [
            "http://", "https://", "<script", "src=", "href=", "url(", "@import", "<link", "<iframe", "javascript:",
        ] {
            #expect(!html.lowercased().contains(forbidden), "the report contains \(forbidden)")
        }
        #expect(
            html.hasPrefix("<!DOCTYPE html>") && html.contains("<style>") && html.contains("<svg")
                && html.contains("@media print"))
    }

    /// Loads the report in headless Chromium and checks the screenshot shows something: many colours, and much
    /// that is not background.
    static func expectVisible(_ page: String, dir: TemporaryDirectory) throws {
        let png = dir.file("screenshot.png")
        try Chromium.capture(page, to: png, scratch: dir)
        let summary = try PNGSummary.of(png)
        #expect(summary.width == 1280 && summary.height == 2000)
        #expect(summary.colours >= 50, "\(summary.colours) colours: the page looks blank")
        #expect(summary.foregroundShare > 0.03, "\(summary.foregroundShare) of the pixels are not background")
    }

    @Test func appGroupReportAgreesWithTheCommands() throws {
        let dir = try TemporaryDirectory()
        let html = try Self.report(Self.appGroupArguments + ["--strategy", "phtk-2"], in: dir)
        Self.expectSelfContained(html)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["report.html"],
            "a temporary file was left")
        let page = HTMLPage(html)

        // Summary, as info counts it.
        let info = try CLI.run(["info", Self.appGroup, "--change-types"]).json()
        let glance = page.fields(section: "glance")
        #expect(
            glance["History"]?.hasPrefix(
                """
                \(info["transactionCount"] as? Int ?? -1) transactions and \(info["changeCount"] as? Int ?? -1) \
                changes
                """
            ) == true)
        #expect(page.fields(section: "store")["Changes"] == "67 (35 inserts, 27 updates, 5 deletes)")

        // Actors and statuses, as actors reports them.
        let actors = try #require(try CLI.run(["actors"] + Self.appGroupArguments).json()["actors"] as? [[String: Any]])
        let actorRows = page.rows(section: "actors", table: "Actors")
        #expect(actorRows.count == actors.count && actors.count == 3)
        for actor in actors {
            let name = try #require(actor["actor"] as? String)
            let row = try #require(actorRows.first { $0.first == name }, "no row for \(name)")
            #expect(row[1].hasSuffix(actor["status"] as? String ?? "?"), "\(name): \(row)")
            let marker = html.components(separatedBy: "<g class=\"marker\">").dropFirst().first {
                $0.contains(">\(name)</text>")
            }
            #expect(
                marker?.contains(">\(actor["status"] as? String ?? "?")</text>") == true,
                "the timeline does not mark \(name)")
        }
        #expect(actorRows.first { $0.first == "widget" }?[1] == "⚠ behind")
        #expect(glance["Actors"] == "3 actors, 1 up-to-date, 2 behind · 3 writers without merge state")

        // The purge of the chosen strategy, as purge previews it.
        let purge = try CLI.run(["purge"] + Self.appGroupArguments + ["--strategy", "phtk-2", "--breakdown"]).json()
        let deleted =
            "\(purge["transactionCount"] as? Int ?? -1) transactions and \(purge["changeCount"] as? Int ?? -1) changes"
        #expect(
            page.fields(section: "purge")["Would delete"]?.hasPrefix(deleted) == true,
            "\(page.fields(section: "purge"))")
        #expect(deleted == "14 transactions and 35 changes")
        let byAuthor = page.rows(section: "purge", table: "By author")
        for a in try #require(purge["byAuthor"] as? [[String: Any]]) {
            #expect(
                byAuthor.contains([
                    a["author"] as? String ?? "-", String(a["transactions"] as? Int ?? -1),
                    String(a["changes"] as? Int ?? -1),
                ]))
        }

        // The check's findings with their messages, as check finds them with the same cleaner.
        let check = try CLI.run(["check"] + Self.appGroupArguments + ["--strategy", "phtk-2", "--fail-on", "info"])
            .json()
        let findings = try #require(check["findings"] as? [[String: Any]])
        let findingRows = page.rows(section: "check", table: nil)
        #expect(findingRows.count == findings.count && !findings.isEmpty)
        for f in findings {
            #expect(
                findingRows.contains {
                    $0.count == 3 && $0[1] == f["rule"] as? String && $0[2] == f["message"] as? String
                        && $0[0].hasSuffix(f["severity"] as? String ?? "?")
                })
        }

        // The busiest authors and entities, as authors and entities count them.
        let authors = try #require(
            try CLI.run(["authors", Self.appGroup, "--by", "author"]).json()["authors"] as? [[String: Any]])
        let authorRows = page.rows(section: "busiest", table: "Authors by changes")
        #expect(authorRows.count == authors.count)
        for a in authors {
            let name = a["value"] as? String ?? "-"
            #expect(
                authorRows.contains {
                    $0.prefix(3) == [
                        name, String(a["changeCount"] as? Int ?? -1), String(a["transactionCount"] as? Int ?? -1),
                    ]
                }, "\(name)")
        }
        #expect(authorRows.first?.first == "app")
        let entities = try #require(try CLI.run(["entities", Self.appGroup]).json()["entities"] as? [[String: Any]])
        let entityRows = page.rows(section: "busiest", table: "Entities by changes")
        for e in entities
        where (e["inserts"] as? Int ?? 0) + (e["updates"] as? Int ?? 0) + (e["deletes"] as? Int ?? 0) > 0 {
            let counts = ["inserts", "updates", "deletes"].map { e[$0] as? Int ?? -1 }
            #expect(
                entityRows.contains(
                    [e["entity"] as? String ?? "?", String(counts.reduce(0, +))] + counts.map(String.init)), "\(e)")
        }
        #expect(entityRows.first == ["Task", "47", "25", "21", "1"])

        // The timeline: a lane per author with its total, and the cut-off.
        let laneTotals = html.components(separatedBy: "<g class=\"lane\">").dropFirst().compactMap { lane -> Int? in
            lane.range(of: #"class="num">(\d+)<"#, options: .regularExpression).flatMap {
                Int(lane[$0].dropFirst(12).dropLast())
            }
        }
        #expect(laneTotals.sorted() == authors.compactMap { $0["transactionCount"] as? Int }.sorted())
        #expect(
            html.components(separatedBy: "<g class=\"marker\">").contains {
                $0.contains(">cut-off</text>") && $0.contains(">purge cut-off</text>")
            })

        if Chromium.available {
            try Self.expectVisible(dir.file("report.html"), dir: dir)
            // It prints: a PDF of at least one page.
            try Chromium.capture(dir.file("report.html"), to: dir.file("report.pdf"), scratch: dir)
            let pdf = try Data(contentsOf: URL(fileURLWithPath: dir.file("report.pdf")))
            #expect(pdf.starts(with: Data("%PDF".utf8)))
            #expect(String(decoding: pdf, as: UTF8.self).components(separatedBy: "/Type /Page").count - 1 > 1)
        }
    }

    @Test func groupContainerReport() throws {
        let dir = try TemporaryDirectory()
        let container = Repository.fixtures + "/GroupContainer/" + MergeStateFixtures.containerUUID
        let before = try DirectoryState(container)
        let html = try Self.report(
            [
                "--group-container", container, "--actor", "app", "--actor", "widget", "--batch-actor",
                "shareExtension",
                "--now", "2025-03-06T09:00:00Z", "--before", "tx:20",
            ], in: dir)
        #expect(try DirectoryState(container) == before)
        let page = HTMLPage(html)
        let rows = page.rows(section: "actors", table: "Actors")
        #expect(rows.first { $0.first == "shareExtension" }?[1] == "✓ writes-only")
        #expect(rows.first { $0.first == "widget" }?[1] == "⚠ behind")
        #expect(page.fields(section: "purge")["Would delete"]?.hasPrefix("19 transactions") == true)
    }

    @Test(.enabled(if: RealStores.available)) func realStoreReports() throws {
        let dir = try TemporaryDirectory()
        let photos = try Self.report(
            [
                RealStores.photos, "--token", "photos=" + RealStores.photosToken, "--actor", "photos", "--strategy",
                "phtk-2",
            ],
            in: dir, name: "photos.html")
        Self.expectSelfContained(photos)
        let page = HTMLPage(photos)
        #expect(
            page.fields(section: "glance")["History"]?.hasPrefix(
                "516 transactions and 1776 changes by 6 authors (29 transactions without an author)") == true)
        #expect(page.rows(section: "actors", table: "Actors").first { $0.first == "photos" }?[1] == "✓ up-to-date")
        #expect(page.fields(section: "purge")["Would delete"]?.hasPrefix("0 transactions") == true)
        #expect(page.rows(section: "busiest", table: "Authors by changes").first?.prefix(3) == ["[0,0]", "648", "271"])
        // The migrations share a row, as in authors; the purge knows the actor given.
        #expect(
            page.rows(section: "busiest", table: "Authors by changes").contains {
                $0.prefix(3) == ["Core Data migration (3 authors)", "0", "3"]
            })
        #expect(page.fields(section: "purge")["Breaks"] == "none of the 1 actor with a position")
        #expect(photos.contains(">migrations (3)<"), "the timeline's lane of the migrations")
        let swiftData = try Self.report([RealStores.swiftData], in: dir, name: "swiftdata.html")
        Self.expectSelfContained(swiftData)
        #expect(
            HTMLPage(swiftData).fields(section: "glance")["History"]?.hasPrefix("38 transactions and 55 changes")
                == true)
        #expect(
            HTMLPage(swiftData).fields(section: "glance")["Actors"]
                == "no actor known (give --defaults, --token or --group-container)")
        if Chromium.available {
            for name in ["photos.html", "swiftdata.html"] {
                let scratch = try TemporaryDirectory()
                try Self.expectVisible(dir.file(name), dir: scratch)
                // Nothing wider than the window, no table that scrolls sideways (the cleaners' table did).
                #expect(try Chromium.overflowing(dir.file(name), scratch: scratch).isEmpty, "\(name)")
            }
        }
    }

    /// The report says what the terminal says: the writers' line of `actors` (a framework's authors
    /// grouped as one family), no badge without text, and at 1280 pixels every column in view,
    /// with `--all` (each strategy's rule in a column of its own) as without. On a CloudKit store,
    /// a store with cleaners that break actors, and (with ../shared) a Photos library of 14
    /// migration authors.
    @Test(arguments: ["cloudkit", "cleaners", "many", "photos"]) func reportSaysWhatActorsSays(_ name: String) throws {
        let fixtures = Repository.fixtures
        let dir = try TemporaryDirectory()
        let arguments: [String]
        switch name {
        case "many":
            // Twelve extensions of long names, each merged up to the first day: a cleaner breaks them all, in one long Effect.
            let store = fixtures + "/MergeState/Tasks.sqlite"
            let uuid = "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87"
            let positions = Dictionary(
                uniqueKeysWithValues: (1...12).map {
                    (
                        "persistent-history-tracking:\(uuid)-com.example.tasks.notificationServiceExtension\($0)",
                        Date(timeIntervalSinceReferenceDate: 762_685_260)
                    )
                })
            let plist = dir.file("many.plist")
            try PropertyListSerialization.data(fromPropertyList: positions, format: .binary, options: 0).write(
                to: URL(fileURLWithPath: plist))
            arguments = [store, "--defaults", plist, "--strategy", "appwise"]
        case "cloudkit":
            arguments = [fixtures + "/CloudKit/Tasks.sqlite", "--defaults", fixtures + "/CloudKit/swiftdata.plist"]
        case "cleaners":
            arguments = [
                fixtures + "/MergeState/Tasks.sqlite", "--defaults", fixtures + "/MergeState/appwise.plist",
                "--strategy", "appwise",
            ]
        default:
            guard let store = Corpus.stores.first(where: { $0.contains("/Test-14.6.0/") }) else {
                print("NOTICE: ../shared/corpus not found; the report of Test-14.6.0 is not compared")
                return
            }
            let token = URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent(
                "HistoryToken.plist"
            ).path
            arguments = [store, "--token", "photos=" + token, "--strategy", "phtk-2"]
        }
        let merge = arguments.filter { $0 != "--strategy" && $0 != "appwise" && $0 != "phtk-2" }
        let terminal = try CLI.run(["actors"] + merge + ["--format", "table"])
        #expect(terminal.status == 0 || terminal.status == 1, "\(terminal.stderr)")
        let writers = try #require(terminal.lines.first { $0.contains(" without a merge position") })
        for all in [false, true] {
            let file = all ? "all.html" : "report.html"
            let html = try Self.report(arguments + (all ? ["--all"] : []), in: dir, name: file)
            let notes = HTMLPage(html).notes(section: "actors")
            if all {
                #expect(!notes.contains(writers), "--all names every author")
            } else {
                #expect(notes.contains(writers), "\(notes)")
            }
            #expect(!html.contains("<span aria-hidden=\"true\">✕ </span></span>"), "an empty badge")
            if Chromium.available {
                let scratch = try TemporaryDirectory()
                #expect(try Chromium.overflowing(dir.file(file), scratch: scratch).isEmpty, "\(name) \(file)")
            }
        }
    }

    @Test func storeTextIsEscaped() throws {
        let dir = try TemporaryDirectory()
        for name in ["Tasks.sqlite"] { try FileManager.default.copyItem(atPath: Self.appGroup, toPath: dir.file(name)) }
        let hostile = #"<script>alert("x")</script> & 'q'"#
        let queue = try DatabaseQueue(path: dir.file("Tasks.sqlite"))
        try queue.write { db in
            try db.execute(sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = ? WHERE ZNAME = 'widget'", arguments: [hostile])
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = ? WHERE Z_NAME = 'Tag'", arguments: ["Tag<img onerror=x>"])
        }
        try queue.close()
        let out = try TemporaryDirectory()
        let html = try Self.report([dir.file("Tasks.sqlite"), "--actor", "<b>bold</b>", "--utc"], in: out)
        Self.expectSelfContained(html)
        #expect(!html.contains("<script>") && !html.contains("<img") && !html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"))
        let page = HTMLPage(html)
        #expect(
            page.rows(section: "busiest", table: "Entities by changes").contains { $0.first == "Tag<img onerror=x>" })
        #expect(page.rows(section: "busiest", table: "Authors by changes").contains { $0.first == hostile })
        #expect(
            page.rows(section: "actors", table: "Actors").first { $0.first == "<b>bold</b>" }?[1] == "⚠ never-merged")
    }

    @Test func refusesToOverwriteItsInputsAndNamesTheFile() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.appGroup, toPath: dir.file("Tasks.sqlite"))
        try FileManager.default.copyItem(atPath: Self.mergeState + "/phtk.plist", toPath: dir.file("phtk.plist"))
        let before = try DirectoryState(dir.path)
        for target in ["Tasks.sqlite", "phtk.plist"] {
            let r = try CLI.run([
                "report", dir.file("Tasks.sqlite"), "--defaults", dir.file("phtk.plist"), "--out", dir.file(target),
            ])
            #expect(r.status == 2)
            #expect(r.stderr == "cdhist: \(dir.file(target)): cannot write (this command reads it)\n")
        }
        let missing = try CLI.run(["report", dir.file("Tasks.sqlite"), "--out", dir.file("no/such/dir/report.html")])
        #expect(
            missing.status == 2
                && missing.stderr.hasPrefix("cdhist: \(dir.file("no/such/dir/report.html")): cannot write"))
        let noOut = try CLI.run(["report", dir.file("Tasks.sqlite")])
        #expect(noOut.status == 2 && noOut.stderr.contains("--out"))
        let badStore = try CLI.run(["report", dir.file("none.sqlite"), "--out", dir.file("r.html")])
        #expect(badStore.status == 2 && badStore.stderr == "cdhist: \(dir.file("none.sqlite")): no such file\n")
        let badStrategy = try CLI.run([
            "report", dir.file("Tasks.sqlite"), "--strategy", "nope", "--out", dir.file("r.html"),
        ])
        #expect(badStrategy.status == 2 && badStrategy.stderr.contains("unknown strategy 'nope'"))
        #expect(try DirectoryState(dir.path) == before, "a failed report left or changed a file")
    }

    @Test func reportFromTheSessionIgnoresItsFormat() throws {
        let dir = try TemporaryDirectory()
        let r = try CLI.run([
            Self.appGroup, "-c", "format json", "-c", "defaults \(Self.mergeState)/phtk.plist",
            "-c", "report --out \(dir.file("session.html")) --now 2025-03-06T09:00:00Z --utc",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOfFile: dir.file("session.html"), encoding: .utf8)
        #expect(
            HTMLPage(html).rows(section: "actors", table: "Actors").first { $0.first == "widget" }?[1] == "⚠ behind")
    }
}

/// Reads the report's sections back: fields (`<dt>`/`<dd>`) and table rows, as text.
struct HTMLPage {
    let html: String

    init(_ html: String) { self.html = html }

    private func section(_ id: String) -> String {
        guard let start = html.range(of: "<section id=\"\(id)\">") else { return "" }
        let rest = html[start.upperBound...]
        return String(rest[..<(rest.range(of: "</section>")?.lowerBound ?? rest.endIndex)])
    }

    func fields(section id: String) -> [String: String] {
        var result: [String: String] = [:]
        for part in section(id).components(separatedBy: "<dt>").dropFirst() {
            let pieces = part.components(separatedBy: "</dt><dd>")
            guard pieces.count == 2 else { continue }
            result[Self.text(pieces[0])] = Self.text(pieces[1].components(separatedBy: "</dd>")[0])
        }
        return result
    }

    /// The section's notes (`<p class="note">`), as text.
    func notes(section id: String) -> [String] {
        section(id).components(separatedBy: "<p class=\"note\">").dropFirst().map {
            Self.text($0.components(separatedBy: "</p>")[0])
        }
    }

    /// Rows of the table after the `<h3>` titled `table` (the first table when nil).
    func rows(section id: String, table: String?) -> [[String]] {
        var text = section(id)
        if let table, let title = text.range(of: "<h3>\(table)</h3>") { text = String(text[title.upperBound...]) }
        guard let body = text.range(of: "<tbody>"), let end = text.range(of: "</tbody>") else { return [] }
        return text[body.upperBound..<end.lowerBound].components(separatedBy: "<tr>").dropFirst().map { row in
            row.components(separatedBy: "<td").dropFirst().map { cell in
                Self.text(String(cell.drop { $0 != ">" }.dropFirst()).components(separatedBy: "</td>")[0])
            }
        }
    }

    /// Markup removed, references resolved.
    static func text(_ markup: String) -> String {
        markup.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
