import Foundation
import TestSupport
import Testing

/// How the code is laid out: a command file is its options, one library call and one
/// presenter; renderers know documents, never commands or the interactive session.
@Suite struct ArchitectureTests {
    private func swiftFiles(_ folder: String) throws -> [(name: String, text: String)] {
        let root = Repository.root.appendingPathComponent(folder)
        return try (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") }
            .map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func commandFilesAreShort() throws {
        let files = try swiftFiles("Sources/cdhist/Commands")
        #expect(files.count >= 19)
        for file in files {
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            #expect(lines <= 100, "\(file.name): \(lines) lines")
        }
    }

    /// A command makes one library call for its job: of HistoryKit's use cases (the types of
    /// `UseCases/` that take a request), a command file names one at most.
    @Test func commandsCallOneUseCaseEach() throws {
        let declared = try NSRegularExpression(pattern: "public (?:struct|enum) ([A-Z][A-Za-z]+)")
        let useCases = try swiftFiles("Sources/HistoryKit/UseCases").flatMap { file in
            declared.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                .compactMap { Range($0.range(at: 1), in: file.text).map { String(file.text[$0]) } }
        }.filter { !$0.hasSuffix("Request") && !$0.hasSuffix("Result") }
        #expect(useCases.count >= 5, "\(useCases)")
        let call = try NSRegularExpression(pattern: "\\b(\(useCases.joined(separator: "|")))\\.(make|run|read)\\(")
        for file in try swiftFiles("Sources/cdhist/Commands") {
            let called = Set(
                call.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                    .compactMap { Range($0.range(at: 1), in: file.text).map { String(file.text[$0]) } })
            #expect(called.count <= 1, "\(file.name) calls \(called.sorted())")
        }
    }

    /// A command is handed its context (the console, the session it runs in, its stops) as a
    /// parameter, by the command line or by a session: none looks one up, and nothing keeps one
    /// in a task-local; only the process's entry names the process's own console.
    @Test func commandsAreGivenTheirContext() throws {
        let commands = try swiftFiles("Sources/cdhist/Commands").filter { $0.name.hasSuffix("Command.swift") }
        #expect(commands.count >= 24)
        for file in commands {
            #expect(file.text.contains("func run(_ context: CommandContext) throws"), "\(file.name) is not handed one")
            #expect(!file.text.contains("func run() throws"), "\(file.name) runs without one")
        }
        let tool = try swiftFiles("Sources/cdhist").map { (name: "cdhist/" + $0.name, text: $0.text) }
        let library = try LayerTests.targets.flatMap { target in
            try swiftFiles("Sources/" + target.name).map { (name: target.name + "/" + $0.name, text: $0.text) }
        }
        #expect(library.count >= 100)
        let entries: Set = [
            "cdhist/Entry.swift", "cdhist/Runtime/CommandContext.swift", "cdhist/Runtime/Console.swift",
        ]
        for file in tool + library {
            #expect(!file.text.contains("@TaskLocal"), "\(file.name) keeps a task-local")
            #expect(
                entries.contains(file.name)
                    || !file.text.contains("Console.process")
                        && !file.text.contains("FileHandle.standardOutput")
                        && !file.text.contains("FileHandle.standardError"),
                "\(file.name) writes to the process's streams, not to the console it was handed")
        }
    }

    @Test func renderersNameNoCommandAndNoSession() throws {
        let files = try swiftFiles("Sources/cdhist/Rendering")
        #expect(files.count >= 30)
        let command = try NSRegularExpression(
            pattern: "\\b[A-Z][A-Za-z]*Command\\b|\\bCDHist\\b|REPLEnvironment|LineRunner|InteractiveSession")
        for file in files {
            let found = command.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                .compactMap { Range($0.range, in: file.text).map { String(file.text[$0]) } }
            #expect(found.isEmpty, "\(file.name) names \(found)")
        }
    }

    /// What a check rule says is written in one place, RuleMessages, as a function of what the
    /// rule found: a rule's file holds its logic and its one-line summary, no paragraph of text.
    @Test func ruleWordsLiveInOnePlace() throws {
        let rules = try swiftFiles("Sources/HistoryKit/Check/Rules")
        #expect(rules.count >= 30)
        for rule in rules {
            #expect(
                !rule.text.contains("\"\"\""), "\(rule.name) writes a paragraph of its own: move it to RuleMessages")
        }
        let messages = try String(
            contentsOf: Repository.root.appendingPathComponent("Sources/HistoryKit/Check/RuleMessages.swift"),
            encoding: .utf8)
        let calls = rules.map { $0.text.components(separatedBy: "RuleMessages.").count - 1 }.reduce(0, +)
        #expect(calls >= 25)
        #expect(messages.components(separatedBy: "    static func ").count - 1 >= 25)
    }

    /// HistoryKit speaks of the domain: a string of its code names no flag and no command line;
    /// it points at a `Control`, which the tool names.
    @Test func historyKitNamesNoFlag() throws {
        let files = try LayerTests.targets.flatMap { try swiftFiles("Sources/" + $0.name) }
        #expect(files.count >= 100)
        let commands = DocumentationTests.subcommands.joined(separator: "|")
        let flag = try NSRegularExpression(pattern: "\"[^\"]*(--[a-z]|cdhist (\(commands))\\b)")
        // A line of a multi-line string literal is text from its first character.
        let textFlag = try NSRegularExpression(pattern: "(--[a-z]|cdhist (\(commands))\\b)")
        for file in files {
            var inLiteral = false
            for line in file.text.split(separator: "\n") {
                let text = String(line)
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                let delimiters = text.components(separatedBy: "\"\"\"").count - 1
                let pattern = inLiteral ? textFlag : flag
                if delimiters % 2 == 1 { inLiteral.toggle() }
                guard !trimmed.hasPrefix("//") || inLiteral else { continue }
                #expect(
                    pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil,
                    "\(file.name): \(text)")
            }
        }
    }

    /// The formatter's width (`.swift-format`): no line of the sources is wider, string literals
    /// included (a long one continues on the next line with a backslash).
    @Test func sourceLinesFitTheFormattersWidth() throws {
        var checked = 0
        for folder in LayerTests.targets.map({ "Sources/" + $0.name }) + [
            "Sources/cdhist", "Sources/cdhist-main", "Sources/HistoryFixtures", "Sources/cdhist-fixtures",
            "Sources/CDHistMCP", "Sources/cdhist-mcp",
        ] {
            for file in try swiftFiles(folder) {
                for (index, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    checked += 1
                    #expect(line.count <= 120, "\(folder)/\(file.name):\(index + 1): \(line.count) columns")
                }
            }
        }
        #expect(checked > 30_000)
    }

    /// Every flag and command the tool names a control by is one of its own, in that command's --help.
    @Test func controlNamesAreTheToolsOwn() throws {
        let source = try String(
            contentsOf: Repository.root.appendingPathComponent("Sources/cdhist/Options/ControlNames.swift"),
            encoding: .utf8)
        let named = try NSRegularExpression(pattern: "case \\.[a-zA-Z]+: return \"([^\"]+)\"")
        let names = named.matches(in: source, range: NSRange(source.startIndex..., in: source))
            .compactMap { Range($0.range(at: 1), in: source).map { String(source[$0]) } }
        #expect(names.count >= 20)
        var help: [String: String] = [:]
        func helpText(_ command: String) throws -> String {
            if let text = help[command] { return text }
            let text = try CLI.run([command, "--help"]).stdout
            help[command] = text
            return text
        }
        for name in names {
            let words = name.split(separator: " ").map(String.init)
            let flags = words.filter { $0.hasPrefix("--") }
            if words.count == 1, !name.hasPrefix("-") {
                #expect(DocumentationTests.subcommands.contains(name), "\(name): no command \(name)")
            } else if words.first == "cdhist" {
                let command = words[1]
                #expect(DocumentationTests.subcommands.contains(command), "\(name): no command \(command)")
                for flag in flags {
                    #expect(try helpText(command).contains(flag), "\(name): cdhist \(command) has no \(flag)")
                }
            } else {
                #expect(flags.count == 1, "\(name)")
                let everywhere = try DocumentationTests.subcommands.map(helpText).joined()
                for flag in flags { #expect(everywhere.contains(flag + " "), "\(name): no command has \(flag)") }
            }
        }
    }
}
