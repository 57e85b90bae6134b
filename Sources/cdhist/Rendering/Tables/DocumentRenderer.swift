import Foundation
import HistoryKit

/// A single document (`info`, `show`, `entities`, `authors`): sections for
/// people, one JSON object for programs.
struct Document {
    /// One part of the human-readable form.
    enum Section {
        case fields(title: String?, [(String, String)])
        case table(title: String?, columns: [Column], rows: [[Cell]])
        case note(String)
        /// Commands to copy and run, as words: shell-quoted, each split over lines with ` \`
        /// where it is wider than the terminal.
        case commands(title: String, [[String]])
    }

    var kind: String
    var json: [(String, JSONValue)]
    var sections: [Section]
    /// CSV from the sections (the timeline's counts per bucket, a column per lane) rather than
    /// from the JSON (``CSVDocument``).
    var csvFromSections = false
}

/// Writes a ``Document`` in the chosen format.
enum DocumentRenderer {
    /// A document as one CSV table, header first: a single section as it is (its fields as
    /// `field,value`), several under a first column naming each row's section (its title,
    /// `fields` or `note`), their columns side by side, a cell empty where a section has none.
    static func csvRows(_ document: Document) -> [[String]] {
        func parts(_ section: Document.Section) -> (name: String, header: [String], rows: [[String]]) {
            switch section {
            case .fields(let title, let pairs):
                return (title ?? "fields", ["field", "value"], pairs.map { [$0.0, $0.1] })
            case .table(let title, let columns, let rows):
                return (title ?? document.kind, columns.map(\.title), rows.map { $0.map(\.text) })
            case .note(let text): return ("note", ["note"], [[text]])
            case .commands(let title, let commands): return (title, ["command"], commands.map { [ShellWord.line($0)] })
            }
        }
        let sections = document.sections.map(parts)
        if sections.count <= 1 { return sections.first.map { [$0.header] + $0.rows } ?? [] }
        // A title a section has twice (a timeline's author named like another column) gets two columns:
        // the k-th column of a title in a section is the k-th of that title in the header.
        func positions(_ titles: [String]) -> [(title: String, occurrence: Int)] {
            var seen: [String: Int] = [:]
            return titles.map { title in
                defer { seen[title, default: 0] += 1 }
                return (title, seen[title, default: 0])
            }
        }
        var header: [String] = []
        for section in sections {
            for (title, k) in positions(section.header) where header.filter({ $0 == title }).count <= k {
                header.append(title)
            }
        }
        var rows = [["section"] + header]
        for section in sections {
            let at = positions(section.header).map { title, k in header.indices.filter { header[$0] == title }[k] }
            for row in section.rows {
                var cells = Array(repeating: "", count: header.count)
                for (i, text) in row.enumerated() where i < at.count { cells[at[i]] = text }
                rows.append([section.name] + cells)
            }
        }
        return rows
    }

    static func render(_ document: Document, context: RenderContext) {
        let out = context.output
        // NDJSON says the save in its first line, before the document's.
        let members =
            context.format == .ndjson ? context.documentMembers.filter { $0.0 != "atSave" } : context.documentMembers
        let object = JSONValue.object(
            [("format", .string(jsonFormatTag)), ("kind", .string(document.kind))] + members + document.json)
        switch context.format {
        case .json:
            var bytes: [UInt8] = []
            if context.terminal.stdoutIsTerminal { object.pretty(into: &bytes) } else { object.write(to: &bytes) }
            bytes.append(0x0A)
            out.write(bytes: bytes)
        case .ndjson:
            var bytes: [UInt8] = []
            object.write(to: &bytes)
            bytes.append(0x0A)
            out.write(bytes: bytes)
        case .csv:
            let rows = document.csvFromSections ? csvRows(document) : CSVDocument.rows(document.json)
            for row in rows { out.line(CSV.row(row, raw: context.csvRaw)) }
        case .table:
            var first = true
            for section in document.sections {
                if !first { out.line() }
                first = false
                switch section {
                case .fields(let title, let pairs):
                    if let title { for line in Self.wrapped(title, context) { out.line(context.style(line, .bold)) } }
                    let width = pairs.map { TerminalText.visible($0.0).cells }.max() ?? 0
                    // Values wrap at the terminal's width, under the value column (or, when the
                    // names leave too little room, under the names); a value of megabytes (a 10 MB
                    // author) is cut first, as in tables.
                    // A value whose id or number would not fit beside the names goes under its name.
                    let room = context.terminal.width.map { $0 - width - 2 } ?? Int.max
                    for (k, v) in pairs {
                        let value = TableLayout.clean(v)
                        let label = context.style(
                            TableLayout.pad(TerminalText.visible(k) + ":", to: width + 1, right: false), .dim)
                        guard let total = context.terminal.width else {
                            out.line(label + " " + value)
                            continue
                        }
                        let longestNumber =
                            TextWrap.units(value).filter { $0.count <= 40 && $0.contains(where: \.isNumber) }.map(
                                \.cells
                            ).max() ?? 0
                        if room >= 20 && room >= longestNumber {
                            var lines = TextWrap.lines(value, width: room)
                            out.line(label + " " + lines.removeFirst())
                            for line in lines { out.line(String(repeating: " ", count: width + 2) + line) }
                        } else {
                            out.line(context.style(TerminalText.visible(k) + ":", .dim))
                            for line in TextWrap.lines(value, width: total - 2) { out.line("  " + line) }
                        }
                    }
                case .table(let title, let columns, let rows):
                    if let title { for line in Self.wrapped(title, context) { out.line(context.style(line, .bold)) } }
                    // Laid out from every row, and alike for tables of the same columns (authors' four).
                    let titles = columns.map(\.title)
                    let alike = document.sections.flatMap { section -> [[Cell]] in
                        guard case .table(_, let other, let otherRows) = section, other.map(\.title) == titles else {
                            return []
                        }
                        return otherRows
                    }
                    let layout = TableLayout(columns: columns, rows: alike, totalWidth: context.terminal.width)
                    let table = ListRenderer(context: context, kind: "rows", columns: columns, layout: layout)
                    for row in rows { table.add(cells: row) }
                    table.finish()
                case .note(let text):
                    for line in Self.wrapped(text, context) { out.line(line) }
                case .commands(let title, let commands):
                    for line in Self.wrapped(title, context) { out.line(line) }
                    for command in commands {
                        for line in ShellWord.lines(
                            command.map { TableLayout.clean($0) }, width: context.terminal.width, indent: "  ")
                        {
                            out.line(line)
                        }
                    }
                }
            }
        }
        out.flush()
    }

    /// Free text in lines of the terminal's width (one line when not fitting a terminal).
    static func wrapped(_ text: String, _ context: RenderContext) -> [String] {
        context.terminal.width.map { TextWrap.lines(TableLayout.clean(text), width: $0) } ?? [TableLayout.clean(text)]
    }
}
