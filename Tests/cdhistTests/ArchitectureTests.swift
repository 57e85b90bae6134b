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

    @Test func renderersNameNoCommandAndNoSession() throws {
        let files = try swiftFiles("Sources/cdhist/Rendering")
        #expect(files.count >= 30)
        let command = try NSRegularExpression(pattern: "\\b[A-Z][A-Za-z]*Command\\b|\\bCDHist\\b|REPLEnvironment|LineRunner|InteractiveSession")
        for file in files {
            let found = command.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                .compactMap { Range($0.range, in: file.text).map { String(file.text[$0]) } }
            #expect(found.isEmpty, "\(file.name) names \(found)")
        }
    }

    /// HistoryKit speaks of the domain: a string of its code names no flag and no command line;
    /// it points at a `Control`, which the tool names.
    @Test func historyKitNamesNoFlag() throws {
        let files = try swiftFiles("Sources/HistoryKit")
        #expect(files.count >= 100)
        let commands = DocumentationTests.subcommands.joined(separator: "|")
        let flag = try NSRegularExpression(pattern: "\"[^\"]*(--[a-z]|cdhist (\(commands))\\b)")
        for file in files {
            for line in file.text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let text = String(line)
                #expect(flag.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil, "\(file.name): \(text)")
            }
        }
    }

    /// Every flag and command the tool names a control by is one of its own, in that command's --help.
    @Test func controlNamesAreTheToolsOwn() throws {
        let source = try String(contentsOf: Repository.root.appendingPathComponent("Sources/cdhist/Options/ControlNames.swift"), encoding: .utf8)
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
                for flag in flags { #expect(try helpText(command).contains(flag), "\(name): cdhist \(command) has no \(flag)") }
            } else {
                #expect(flags.count == 1, "\(name)")
                let everywhere = try DocumentationTests.subcommands.map(helpText).joined()
                for flag in flags { #expect(everywhere.contains(flag + " "), "\(name): no command has \(flag)") }
            }
        }
    }
}
