import Foundation
import HistoryKit
import TestSupport
import Testing

/// Every command's output on the fixtures, compared byte for byte with a file under
/// `Tests/Goldens`: its table at 80 columns and its JSON. `CDHIST_RECORD_GOLDENS=1 swift test
/// --filter GoldenTests` writes them again; a changed file shows in review.
///
/// Commands run with paths relative to the repository, as a user in a clone types them, so
/// that where the clone sits changes no byte (a table wraps a long path). Clocks are fixed
/// with `--now` where a command reads one. Not here: `watch` (it follows a store until
/// stopped), `repl` (a session) and `report` (an HTML page carrying the time of its making
/// and each input's hash; ReportTests read it back).
@Suite struct GoldenTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        /// The formats recorded (a table and JSON, unless the command has no table).
        var formats = ["table", "json"]
        var testDescription: String { name }
    }

    static let now = ["--now", "2025-03-06T09:00:00Z"]
    static let m = "fixtures/MergeState"

    /// One case per command (two where a second input shows another side of it).
    static let commands: [Case] = [
        Case(name: "info", arguments: ["info", "fixtures/Purged/Tasks.sqlite"]),
        Case(name: "transactions", arguments: ["transactions", "fixtures/AppGroup/Tasks.sqlite"]),
        Case(name: "changes", arguments: ["changes", "fixtures/AppGroup/Tasks.sqlite", "--limit", "25"]),
        Case(name: "show", arguments: ["show", "fixtures/Later/Tasks.sqlite", "37"]),
        Case(name: "entities", arguments: ["entities", "fixtures/AppGroup/Tasks.sqlite"]),
        Case(name: "authors", arguments: ["authors", "fixtures/AppGroup/Tasks.sqlite"]),
        Case(name: "object", arguments: ["object", "fixtures/Later/Tasks.sqlite", "Task/p3"]),
        Case(name: "deleted", arguments: ["deleted", "fixtures/Purged/Tasks.sqlite"]),
        Case(
            name: "export", arguments: ["export", "fixtures/AppGroup/Tasks.sqlite", "--after", "tx:30"],
            formats: ["csv", "ndjson"]),
        Case(name: "diff", arguments: ["diff", "fixtures/AppGroup/Tasks.sqlite", "fixtures/Later/Tasks.sqlite"]),
        Case(name: "actors", arguments: ["actors", "\(m)/Tasks.sqlite", "--defaults", "\(m)/phtk.plist"] + now),
        Case(
            name: "actors-cloudkit",
            arguments: ["actors", "fixtures/CloudKit/Tasks.sqlite", "--defaults", "fixtures/CloudKit/swiftdata.plist"]
                + now),
        Case(name: "token", arguments: ["token", "\(m)/tokens.plist", "--store", "\(m)/Tasks.sqlite"]),
        Case(
            name: "purge",
            arguments: ["purge", "\(m)/Tasks.sqlite", "--defaults", "\(m)/phtk.plist", "--strategy", "apple"] + now),
        Case(
            name: "repair-defaults",
            arguments: [
                "repair-defaults", "\(m)/phtk.plist", "--actor", "widget", "--to", "tx:34",
                "--store", "\(m)/Tasks.sqlite",
            ]),
        Case(
            name: "provoke",
            arguments: [
                "provoke", "missed-changes", "\(m)/Tasks.sqlite", "--defaults", "\(m)/phtk.plist", "--actor", "widget",
            ]),
        Case(
            name: "check",
            arguments: ["check", "fixtures/Purged/Tasks.sqlite", "--defaults", "fixtures/Purged/defaults.plist"] + now),
        Case(name: "cloudkit", arguments: ["cloudkit", "fixtures/CloudKit/Tasks.sqlite"] + now),
        Case(name: "timeline", arguments: ["timeline", "fixtures/AppGroup/Tasks.sqlite"]),
        Case(name: "stores", arguments: ["stores", "fixtures/GroupContainer"]),
        Case(name: "saves", arguments: ["saves", "fixtures/WALSaves/Tasks.sqlite"]),
        Case(name: "recover", arguments: ["recover", "fixtures/WALSaves/Tasks.sqlite"]),
    ]

    static let folder = Repository.root.appendingPathComponent("Tests/Goldens")
    static let recording = ProcessInfo.processInfo.environment["CDHIST_RECORD_GOLDENS"] == "1"

    @Test(
        arguments: commands.flatMap { c in
            c.formats.map { Case(name: "\(c.name).\($0)", arguments: c.arguments + ["--format", $0]) }
        })
    func outputIsItsGolden(_ c: Case) throws {
        // Paths relative to the clone: the tests run from its root (swift test, .ci/run).
        guard FileManager.default.currentDirectoryPath == Repository.root.path else {
            Issue.record(
                """
                the golden outputs are made from the repository's root, not \
                \(FileManager.default.currentDirectoryPath)
                """
            )
            return
        }
        let r = try CLI.run(c.arguments, environment: ["COLUMNS": "80"])
        // Paths a command resolves (a provocation's files, a -wal's real path in JSON) are
        // absolute: the clone's root is written as <clone>/ (no table shows one, and JSON does
        // not wrap, so no byte depends on the root's length).
        let output = (r.stdout + (r.stderr.isEmpty ? "" : "# stderr\n" + r.stderr)).replacingOccurrences(
            of: Repository.root.path + "/", with: "<clone>/")
        let text = "$ cdhist \(c.arguments.joined(separator: " "))\n# exit \(r.status)\n" + output
        let file = Self.folder.appendingPathComponent(c.name + ".txt")
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
            return
        }
        guard let golden = FileContents.read(file.path).map({ String(decoding: $0, as: UTF8.self) }) else {
            Issue.record(
                "no golden file \(c.name).txt: record it with CDHIST_RECORD_GOLDENS=1 swift test --filter GoldenTests")
            return
        }
        guard text != golden else { return }
        let (new, old) = (
            text.split(separator: "\n", omittingEmptySubsequences: false),
            golden.split(separator: "\n", omittingEmptySubsequences: false)
        )
        let line =
            zip(new, old).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(new.count, old.count)
        Issue.record(
            """
            \(c.name).txt differs from line \(line + 1) (CDHIST_RECORD_GOLDENS=1 re-records it):
            golden: \(line < old.count ? String(old[line]) : "(end)")
            now:    \(line < new.count ? String(new[line]) : "(end)")
            """)
    }

    /// Every command of cdhist (but the three above, and `mcp`, a server whose tools are these
    /// commands: CDHistMCPTests pin its tool list) has a golden case, and every golden file a case.
    @Test func everyCommandHasGoldens() throws {
        let help = try CLI.run(["--help"]).stdout
        let listed =
            help.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                return line.hasPrefix("  ") && !line.hasPrefix("   ") ? words.first.map(String.init) : nil
            } ?? []
        let covered = Set(Self.commands.map { $0.arguments[0] })
        #expect(Set(listed).subtracting(["watch", "repl", "report", "mcp", "See"]) == covered, "\(listed)")
        guard !Self.recording else { return }
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: Self.folder.path))
        #expect(files == Set(Self.commands.flatMap { c in c.formats.map { "\(c.name).\($0).txt" } }))
    }
}
