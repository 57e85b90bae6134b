import Foundation
import HistoryKit
import TestSupport
import Testing

/// check --reporter writes what CI systems read: GitHub's workflow commands, JUnit XML, SARIF 2.1.0.
@Suite struct ReporterTests {
    /// Stores with findings of every severity, and the merge state that gives them.
    static var checks: [[String]] {
        var runs = [
            [
                Repository.fixtures + "/Purged/Tasks.sqlite", "--defaults",
                Repository.fixtures + "/Purged/defaults.plist",
            ],
            [
                Repository.fixtures + "/MergeState/Tasks.sqlite", "--defaults",
                Repository.fixtures + "/MergeState/phtk.plist",
            ],
            [Repository.fixtures + "/CloudKit/Tasks.sqlite"],
        ]
        if RealStores.available { runs.append([RealStores.photos, "--token", "photos=" + RealStores.photosToken]) }
        return runs
    }

    /// The findings `check` reports in JSON, as (rule, severity).
    static func findings(_ args: [String]) throws -> [(rule: String, severity: String)] {
        let json = try CLI.run(["check"] + args).json()
        return ((json["findings"] as? [[String: Any]]) ?? []).map {
            ($0["rule"] as? String ?? "", $0["severity"] as? String ?? "")
        }
    }

    static func python(_ script: String, _ args: [String]) throws -> CLI.Result {
        try CLI.run(["python3", "-c", script] + args, executable: "/usr/bin/env")
    }

    @Test func githubLinesAreWorkflowCommandsOnePerFinding() throws {
        let command = try NSRegularExpression(
            pattern: "^::(error|warning|notice) file=[^,:\\n]+,title=[^,:\\n]+::[^\\n]*$")
        for args in Self.checks {
            let expected = try Self.findings(args)
            let r = try CLI.run(["check"] + args + ["--reporter", "github"])
            #expect(r.status == (expected.contains { $0.severity == "error" } ? 1 : 0))
            let lines = r.lines
            #expect(lines.count == expected.count + 1, "\(args[0]): \(lines)")
            for (line, finding) in zip(lines, expected) {
                #expect(command.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil, "\(line)")
                let level = ["error": "error", "warning": "warning", "info": "notice"][finding.severity] ?? ""
                #expect(line.hasPrefix("::\(level) ") && line.contains("title=cdhist \(finding.rule)::"), "\(line)")
            }
            #expect(lines.last?.hasPrefix("cdhist check ") == true)
        }
    }

    @Test func anActorsNameCannotStartAnotherWorkflowCommand() throws {
        let dir = try TemporaryDirectory()
        let plist = dir.file("evil.plist")
        let name = "evil\n::error file=x::forged,%0A"
        try Data(PropertyList.encodeBinary(.dictionary(["PersistentHistoryTrackingKit.lastToken.\(name)": .date(0)])))
            .write(to: URL(fileURLWithPath: plist))
        let r = try CLI.run([
            "check", Repository.fixtures + "/MergeState/Tasks.sqlite", "--defaults", plist, "--reporter", "github",
        ])
        #expect(!r.lines.contains { $0.hasPrefix("::error file=x") }, "\(r.stdout)")
        #expect(r.lines.contains { $0.contains("evil\\n::error file=x::forged,%250A") }, "\(r.stdout)")
    }

    @Test(.enabled(if: SchemaValidator.available)) func sarifValidatesAgainstTheSARIFSchema() throws {
        let dir = try TemporaryDirectory()
        let validate = Repository.root.appendingPathComponent("schemas/sarif-2.1.0/validate.py").path
        for (i, args) in Self.checks.enumerated() {
            let expected = try Self.findings(args)
            let r = try CLI.run(["check"] + args + ["--reporter", "sarif"])
            let file = dir.file("\(i).sarif")
            try r.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            let valid = try CLI.run(["python3", validate, file], executable: "/usr/bin/env")
            #expect(valid.status == 0, "\(valid.stdout)\(valid.stderr)")
            let log = try r.json()
            let run = try #require((log["runs"] as? [[String: Any]])?.first)
            let results = try #require(run["results"] as? [[String: Any]])
            let rules = try #require(
                ((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
            #expect(results.map { $0["ruleId"] as? String ?? "" } == expected.map(\.rule))
            #expect(
                rules.count == Checker.rules.count
                    && rules.allSatisfy { ($0["help"] as? [String: Any])?["text"] is String })
            for result in results {
                let location = ((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
                let uri = (location?["artifactLocation"] as? [String: Any])?["uri"] as? String
                #expect(
                    uri?.hasSuffix(URL(fileURLWithPath: args[0]).lastPathComponent) == true
                        && (location?["region"] as? [String: Any])?["startLine"] as? Int == 1)
                #expect(rules.contains { $0["id"] as? String == result["ruleId"] as? String })
            }
        }
        // The validation can fail: a log without its version is refused.
        let broken = dir.file("broken.sarif")
        try String(
            try String(contentsOfFile: dir.file("0.sarif"), encoding: .utf8).replacingOccurrences(
                of: "\"version\": \"2.1.0\"", with: "\"version\": \"2.0\"")
        )
        .write(toFile: broken, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["python3", validate, broken], executable: "/usr/bin/env").status == 1)
    }

    @Test func junitIsOneCasePerRuleFailingOnFindingsOfTheFailingSeverity() throws {
        let parser = try Self.python("import junitparser", [])
        if parser.status != 0 {
            print(
                "NOTICE: python3's junitparser not found; JUnit XML is read with ElementTree only (.ci/run installs it)"
            )
        }
        // Prints each case as name, then failed or passed; with junitparser when it is there, else ElementTree.
        let script = """
            import sys
            try:
                from junitparser import JUnitXml, Failure
                for suite in JUnitXml.fromfile(sys.argv[1]):
                    for case in suite:
                        print(case.name, "failed" if any(isinstance(r, Failure) for r in case.result) else "passed")
            except ImportError:
                import xml.etree.ElementTree as ET
                for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
                    print(case.get("name"), "failed" if case.find("failure") is not None else "passed")
            """
        let dir = try TemporaryDirectory()
        for (i, args) in Self.checks.enumerated() {
            let expected = try Self.findings(args)
            for failOn in ["error", "info"] {
                let r = try CLI.run(["check"] + args + ["--reporter", "junit", "--fail-on", failOn])
                let file = dir.file("\(i)-\(failOn).xml")
                try r.stdout.write(toFile: file, atomically: true, encoding: .utf8)
                let parsed = try Self.python(script, [file])
                #expect(parsed.status == 0, "\(parsed.stderr)")
                let cases = parsed.lines.map { $0.split(separator: " ").map(String.init) }
                #expect(cases.map { $0.first ?? "" } == Checker.rules.map(\.id))
                let failing = Set(expected.filter { failOn == "info" || $0.severity == "error" }.map(\.rule))
                #expect(
                    Set(cases.filter { $0.last == "failed" }.compactMap(\.first)) == failing,
                    "\(args[0]) --fail-on \(failOn)")
                #expect(r.status == (failing.isEmpty ? 0 : 1))
            }
        }
    }
}
