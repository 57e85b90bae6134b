import Foundation
import HistoryKit
import MCP

/// The manual's sections (`cdhist.1`), as plain text an agent reads: found beside the installed
/// server (`PREFIX/share/man/man1`), or in the clone the server was built in.
struct ManualSections: Sendable {
    struct Section: Sendable, Equatable {
        /// Its heading, as the manual writes it (`COMMANDS`).
        let title: String
        /// The resource's address: `cdhist://manual/` and the heading in lower case, `-` for a space.
        let uri: String
        let text: String
    }

    let sections: [Section]

    /// The sections of the manual found for the executable at `executable`; none when it is not there.
    static func find(near executable: URL?) -> ManualSections {
        guard let folder = executable?.resolvingSymlinksInPath().deletingLastPathComponent() else {
            return ManualSections(sections: [])
        }
        let candidates = [
            "../share/man/man1/cdhist.1",  // scripts/install
            "../../man/cdhist.1",  // .build/debug in the clone
            "../../../man/cdhist.1",  // .build/<triple>/debug
        ]
        for candidate in candidates {
            let file = folder.appendingPathComponent(candidate).standardizedFileURL
            if let source = FileContents.read(file.path) {
                return ManualSections(mdoc: String(decoding: source, as: UTF8.self))
            }
        }
        return ManualSections(sections: [])
    }

    /// The sections of `mdoc`, the manual's source.
    init(mdoc: String) {
        var sections: [Section] = []
        var title: String?
        var text = Paragraphs()
        func close() {
            guard let title else { return }
            let slug = title.lowercased().replacingOccurrences(of: " ", with: "-")
            sections.append(Section(title: title, uri: "cdhist://manual/\(slug)", text: text.finished()))
        }
        for line in mdoc.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".Sh ") {
                close()
                title = String(line.dropFirst(4))
                text = Paragraphs()
            } else if title != nil {
                text.add(String(line))
            }
        }
        close()
        self.sections = sections
    }

    private init(sections: [Section]) { self.sections = sections }

    /// Lists and reads the sections on `server`.
    func serve(on server: Server) async {
        let sections = sections
        await server.withMethodHandler(ListResources.self) { _ in
            .init(
                resources: sections.map {
                    Resource(
                        name: $0.title, uri: $0.uri, description: "The cdhist manual's \($0.title) section.",
                        mimeType: "text/plain")
                })
        }
        await server.withMethodHandler(ReadResource.self) { params in
            guard let section = sections.first(where: { $0.uri == params.uri }) else {
                throw MCPError.invalidParams("no resource \(params.uri) (resources/list lists them)")
            }
            return .init(contents: [.text(section.text, uri: section.uri, mimeType: "text/plain")])
        }
    }
}

/// mdoc read into plain paragraphs: a macro's words run on in the sentence it is part of; a
/// paragraph, a list item and a subsection begin a line of their own.
private struct Paragraphs {
    private var lines: [String] = []
    private var current = ""

    mutating func add(_ line: String) {
        guard line.hasPrefix(".") else {
            append(line.replacingOccurrences(of: "\\-", with: "-"))
            return
        }
        if line.hasPrefix(".\\\"") { return }
        let words = line.dropFirst().split(separator: " ").map(String.init)
        guard let macro = words.first else { return }
        switch macro {
        case "Pp", "Lp":
            flush()
            lines.append("")
            return
        case "Bl", "El", "Ed", "Ek", "Bk", "Dd", "Dt", "Os": return
        case "Ss", "It": flush()
        default: break
        }
        var option = false
        var parenthesized = false
        for (index, word) in words.enumerated() {
            switch word {
            case "Fl":
                option = true
                continue
            case "Nm" where words.count == index + 1 || words[index + 1].count < 2:
                append("cdhist")
                continue
            case "Po":
                append("(")
                continue
            case "Pc":
                append(")")
                continue
            case "Pq":
                append("(")
                parenthesized = true
                continue
            default:
                // Punctuation after a parenthesized phrase follows its closing parenthesis.
                if parenthesized, word.allSatisfy({ ",.;:".contains($0) }) {
                    append(")")
                    parenthesized = false
                }
            }
            // A macro's name: two letters, the first upper case (Cm, Ar, Op, Ql, Sx, ...).
            if word.count == 2, word.first?.isUppercase == true, word.last?.isLowercase == true { continue }
            append((option ? "-" : "") + word.replacingOccurrences(of: "\\-", with: "-"))
            option = false
        }
        if option { append("-") }
        if parenthesized { append(")") }
        if macro == "Ss" || macro == "It" { flush() }
    }

    /// Adds `word` to the line: after a space, but for punctuation that closes what precedes it.
    private mutating func append(_ word: String) {
        guard !word.isEmpty else { return }
        let closing = word.allSatisfy { ",.;:)]".contains($0) }
        current += current.isEmpty || closing || current.hasSuffix("(") ? word : " " + word
    }

    private mutating func flush() {
        if !current.isEmpty { lines.append(current) }
        current = ""
    }

    mutating func finished() -> String {
        flush()
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
