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
        let command = try NSRegularExpression(pattern: "\\b[A-Z][A-Za-z]*Command\\b|REPLEnvironment|LineRunner|InteractiveSession")
        for file in files {
            let found = command.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                .compactMap { Range($0.range, in: file.text).map { String(file.text[$0]) } }
            #expect(found.isEmpty, "\(file.name) names \(found)")
        }
    }
}
