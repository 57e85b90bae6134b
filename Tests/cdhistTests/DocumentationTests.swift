import Foundation
import HistoryFixtures
import TestSupport
import Testing

/// The man page and README stay in step with `--help`; the committed fixtures with the generator.
@Suite(.tags(.slow)) struct DocumentationTests {
    static let subcommands = [
        "info", "transactions", "changes", "show", "entities", "authors", "object", "export", "watch", "diff", "actors",
        "token",
        "purge", "repair-defaults", "provoke", "check", "cloudkit", "timeline", "report", "stores", "deleted", "saves",
        "recover", "repl",
    ]

    private func options(inHelp text: String) -> Set<String> {
        var found: Set<String> = []
        let pattern = try! NSRegularExpression(pattern: "(?<![\\w-])--([a-z][a-z0-9-]*)")
        let ns = text as NSString
        for m in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            found.insert(ns.substring(with: m.range(at: 1)))
        }
        return found.subtracting(["help", "version"])
    }

    @Test func manPageCoversEveryCommandAndOption() throws {
        let man = try String(
            contentsOfFile: Repository.root.appendingPathComponent("man/cdhist.1").path, encoding: .utf8)
        let root = try CLI.run(["--help"]).stdout
        for sub in Self.subcommands {
            #expect(root.contains(sub), "--help does not list \(sub)")
            #expect(man.contains("Cm \(sub)"), "man/cdhist.1 lacks command \(sub)")
            let help = try CLI.run([sub, "--help"]).stdout
            for option in options(inHelp: help) {
                #expect(man.contains("Fl -\(option)"), "man/cdhist.1 lacks --\(option) of \(sub)")
            }
        }
        let listed = root.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        #expect(
            Self.subcommands.count
                == listed.components(separatedBy: "\n").filter { line in
                    // A subcommand's line is indented two spaces; its wrapped abstract continues further in.
                    Self.subcommands.contains { line.hasPrefix("  " + $0 + " ") }
                }.count)
    }

    /// HistoryKit's DocC catalogue names only what HistoryKit declares in public
    /// (`docc convert` checks the same with symbol graphs; this runs in every test run).
    @Test func historyKitCatalogueNamesWhatExists() throws {
        let landing = try String(
            contentsOf: Repository.root.appendingPathComponent("Sources/HistoryKit/HistoryKit.docc/HistoryKit.md"),
            encoding: .utf8)
        // HistoryKit re-exports its layers' targets: what they declare in public, it gives.
        let sources = try LayerTests.sources().map(\.text).joined()
        let links = try NSRegularExpression(pattern: "``([A-Za-z]+)(?:/([A-Za-z]+)\\([^`]*\\))?``")
        let matches = links.matches(in: landing, range: NSRange(landing.startIndex..., in: landing))
        #expect(matches.count > 60)
        for match in matches {
            guard let type = Range(match.range(at: 1), in: landing).map({ String(landing[$0]) }), type != "HistoryKit"
            else { continue }
            #expect(
                sources.range(
                    of: "public (final )?(struct|enum|class|protocol) \(type)\\b", options: .regularExpression) != nil,
                "\(type)")
            if let method = Range(match.range(at: 2), in: landing).map({ String(landing[$0]) }) {
                #expect(
                    sources.contains("public func \(method)(") || sources.contains("public static func \(method)("),
                    "\(type)/\(method)")
            }
        }
    }

    /// Every command's --help fits 80 columns, its usage line too.
    @Test func helpFitsEightyColumns() throws {
        for command in [[]] + Self.subcommands.map({ [$0] }) {
            let help = try CLI.run(command + ["--help"]).stdout
            let wide = help.split(separator: "\n").filter { $0.count > 80 }
            #expect(wide.isEmpty, "cdhist \(command.joined()) --help: \(wide)")
        }
    }

    /// Every check rule (listed by `check --help`) is described in the man page under its id.
    @Test func manPageDescribesEveryCheckRule() throws {
        let man = try String(
            contentsOfFile: Repository.root.appendingPathComponent("man/cdhist.1").path, encoding: .utf8)
        let help = try CLI.run(["check", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        let pattern = try NSRegularExpression(pattern: "([a-z]+(?:-[a-z]+)+) \\((error|warning|info)\\)")
        let ns = help as NSString
        let rules = pattern.matches(in: help, range: NSRange(location: 0, length: ns.length)).map {
            (ns.substring(with: $0.range(at: 1)), ns.substring(with: $0.range(at: 2)))
        }
        #expect(rules.count >= 19)
        for (id, severity) in rules {
            #expect(man.contains(".It Cm \(id)\n\(severity):"), "man/cdhist.1 lacks rule \(id) (\(severity))")
        }
    }

    /// The repository's workflow files and the README's workflow are valid against the published
    /// workflow schema, and their scripts parse; a broken workflow is refused.
    @Test(.enabled(if: SchemaValidator.available)) func workflowsAreValid() throws {
        let validate = Repository.root.appendingPathComponent("schemas/github-workflow/validate.py").path
        let workflows = try FileManager.default.contentsOfDirectory(
            atPath: Repository.root.appendingPathComponent(".github/workflows").path
        )
        .filter { $0.hasSuffix(".yml") }.map { Repository.root.appendingPathComponent(".github/workflows/" + $0).path }
        #expect(!workflows.isEmpty)
        let r = try CLI.run(
            ["python3", validate, Repository.root.appendingPathComponent("README.md").path] + workflows,
            executable: "/usr/bin/env")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.lines.count == workflows.count + 1 && r.lines.allSatisfy { $0.hasPrefix("ok ") })
        let dir = try TemporaryDirectory()
        for (name, text) in [
            ("misspelled.yml", "on: push\njobs:\n  a:\n    run-on: ubuntu-latest\n    steps:\n      - run: echo\n"),
            ("script.yml", "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: if then fi\n"),
        ] {
            try text.write(toFile: dir.file(name), atomically: true, encoding: .utf8)
            #expect(
                try CLI.run(["python3", validate, dir.file(name)], executable: "/usr/bin/env").status == 1,
                "\(name) passed")
        }
    }

    /// mandoc's linter finds nothing to say (mandoc is installed by .ci/run).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/mandoc"))) func manPageLintsClean() throws
    {
        let r = try CLI.run(
            ["-T", "lint", "-W", "style", Repository.root.appendingPathComponent("man/cdhist.1").path],
            executable: "/usr/bin/mandoc")
        let findings = (r.stdout + r.stderr).split(separator: "\n").filter { !$0.contains("makewhatis") }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    @Test func manPageCoversTheSessionCommands() throws {
        let man = try String(
            contentsOfFile: Repository.root.appendingPathComponent("man/cdhist.1").path, encoding: .utf8)
        let help = try CLI.run([Repository.fixtures + "/AppGroup/Tasks.sqlite", "-c", "help"]).stdout
        for word in ["open", "defaults", "model", "format", "help", "clear", "quit", "exit"] {
            #expect(help.contains(word), "session help lacks \(word)")
            #expect(man.contains("Ic \(word)"), "man/cdhist.1 lacks the session command \(word)")
        }
        for option in ["c", "-keep-going"] { #expect(man.contains("Fl \(option)")) }
    }

    @Test func completionScriptsAreGenerated() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try CLI.run(["--generate-completion-script", shell])
            #expect(r.status == 0)
            for sub in Self.subcommands { #expect(r.stdout.contains(sub), "\(shell) completion lacks \(sub)") }
            #expect(r.stdout.contains("prune-strings"))
        }
        let readme = try String(
            contentsOfFile: Repository.root.appendingPathComponent("README.md").path, encoding: .utf8)
        let man = try String(
            contentsOfFile: Repository.root.appendingPathComponent("man/cdhist.1").path, encoding: .utf8)
        #expect(readme.contains("--generate-completion-script") && man.contains("--generate-completion-script"))
    }

    /// The shells' scripts ask cdhist for entity names and object IDs of the store on the command line.
    @Test func shellsCompleteEntitiesAndObjectIDsFromTheStore() throws {
        let store = Repository.fixtures + "/Later/Tasks.sqlite"
        let objects = try CLI.run([
            "---completion", "changes", "--", "--object", "4", "2", "cdhist", "changes", store, "--object", "Ta",
        ])
        #expect(objects.lines == ["Tag/p", "Task/p"], "\(objects.stdout)\(objects.stderr)")
        let keys = try CLI.run([
            "---completion", "object", "--", "positional@1", "3", "7", "cdhist", "object", store, "Task/p2",
        ])
        #expect(
            keys.lines == [
                "Task/p26", "Task/p25", "Task/p24", "Task/p23", "Task/p22", "Task/p21", "Task/p20", "Task/p2",
            ], "\(keys.stdout)\(keys.stderr)")
        let entities = try CLI.run([
            "---completion", "watch", "--", "--entity", "4", "1", "cdhist", "watch", store, "--entity", "P",
        ])
        #expect(entities.lines == ["Photo", "Person", "Project"])
        // No store on the line: nothing, and no error.
        let none = try CLI.run([
            "---completion", "changes", "--", "--object", "2", "0", "cdhist", "changes", "--object", "",
        ])
        #expect(none.status == 0 && none.lines.isEmpty)
    }

    @Test func readmeShowsEveryCommand() throws {
        let readme = try String(
            contentsOfFile: Repository.root.appendingPathComponent("README.md").path, encoding: .utf8)
        for sub in Self.subcommands { #expect(readme.contains("cdhist \(sub)"), "README lacks an example of \(sub)") }
        #expect(readme.contains("swift test"))
        // The screenshot of a report made from a fixture is committed beside the README.
        #expect(readme.contains("](docs/report.png)"))
        let png =
            FileManager.default.contents(atPath: Repository.root.appendingPathComponent("docs/report.png").path)
            ?? Data()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(readme.contains("swift run cdhist"))
    }

    /// Every script the README names exists and runs, and every option the README gives
    /// scripts/install and scripts/package is one they accept (their usage lines list them).
    @Test func readmeScriptsExistWithTheirOptions() throws {
        let readme = try String(
            contentsOfFile: Repository.root.appendingPathComponent("README.md").path, encoding: .utf8)
        let named = Set(
            readme.matches(of: try Regex(#"scripts/([a-z-]+)"#)).compactMap { $0.output[1].substring.map(String.init) })
        #expect(
            named.isSuperset(of: ["install", "package", "check-install", "fuzz", "sanitize", "bench", "bad-inputs"]),
            "\(named.sorted())")
        for name in named {
            #expect(
                FileManager.default.isExecutableFile(
                    atPath: Repository.root.appendingPathComponent("scripts/" + name).path), "scripts/\(name)")
        }
        for script in ["install", "package"] {
            let usage = try CLI.run(
                ["--help"], executable: Repository.root.appendingPathComponent("scripts/" + script).path)
            #expect(usage.status == 2 && usage.stderr.contains("scripts/\(script)"), "\(script): \(usage.stderr)")
            for line in readme.split(separator: "\n") where line.hasPrefix("scripts/\(script) ") {
                for option in line.split(separator: " ").prefix(while: { $0 != "#" }) where option.hasPrefix("--") {
                    #expect(
                        usage.stderr.contains(option),
                        "README gives scripts/\(script) \(option), its usage does not list it")
                }
            }
        }
    }

    /// docs/robustness.md's table of bad inputs is scripts/bad-inputs' output: the script
    /// runs again here, so a changed message or exit status shows as a difference.
    @Test(
        .enabled(
            if: ["/usr/bin/sqlite3", "/usr/bin/python3"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        ))
    func badInputsTableIsTheScriptsOutput() throws {
        let doc = try String(
            contentsOfFile: Repository.root.appendingPathComponent("docs/robustness.md").path, encoding: .utf8)
        let section = try #require(doc.range(of: "## Bad inputs and what you see").map { doc[$0.upperBound...] })
        let documented = section.split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.map(
            String.init)
        let r = try CLI.run(
            [Repository.root.appendingPathComponent("scripts/bad-inputs").path], executable: "/bin/bash",
            environment: ["CDHIST_BIN": CLI.products.path])
        #expect(r.status == 0, "\(r.stderr)")
        let produced = r.lines
        #expect(documented.count >= 50)
        #expect(
            produced.count == documented.count,
            "docs/robustness.md has \(documented.count) table lines, the script printed \(produced.count)")
        for (doc, run) in zip(documented, produced) where doc != run {
            // The unreadable file is read by nobody through setpriv when the script runs as root;
            // as another user it is read directly. Either way the exit status and message must match.
            let docCells = doc.components(separatedBy: " | ")
            let runCells = run.components(separatedBy: " | ")
            if doc.hasPrefix("| unreadable file |"), docCells.count == 5, runCells.count == 5,
                docCells[3...] == runCells[3...]
            {
                continue
            }
            Issue.record("docs/robustness.md:\n\(doc)\nscripts/bad-inputs:\n\(run)")
        }
    }

    @Test func committedFixturesMatchTheGenerator() throws {
        let dir = try TemporaryDirectory()
        let r = try CLI.run(["--out", dir.path], executable: "cdhist-fixtures")
        #expect(r.status == 0, "\(r.stderr)")
        for scenario in Scenarios.all {
            let committed = Repository.fixtures + "/" + scenario.name
            let fresh = dir.path + "/" + scenario.name
            let old = try DirectoryState(committed).files
            let new = try DirectoryState(fresh).files
            #expect(Set(old.keys) == Set(new.keys), "\(scenario.name): different files")
            let store = "/" + scenario.storeFile
            #expect(
                try LogicalDump.of(committed + store) == LogicalDump.of(fresh + store),
                "\(scenario.name): content differs")
            #expect(
                try LogicalDump.of(committed + store, immutable: true)
                    == LogicalDump.of(fresh + store, immutable: true),
                "\(scenario.name): main file without WAL differs")
            // Everything else (plists, tokens, models) is byte-for-byte deterministic.
            for (name, bytes) in old where !name.hasPrefix(scenario.storeFile) {
                #expect(new[name] == bytes, "\(scenario.name)/\(name) differs")
            }
        }
        let readme = try String(contentsOfFile: Repository.fixtures + "/README.md", encoding: .utf8)
        for scenario in Scenarios.all {
            #expect(readme.contains("`\(scenario.name)/`"), "fixtures/README.md lacks \(scenario.name)")
        }
    }
}
