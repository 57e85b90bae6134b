import Foundation

/// A single document (`info`, `show`, `entities`, `authors`): sections for
/// people, one JSON object for programs.
struct Document {
    /// One part of the human-readable form.
    enum Section {
        case fields(title: String?, [(String, String)])
        case table(title: String?, columns: [Column], rows: [[Cell]])
        case note(String)
    }

    var kind: String
    var json: [(String, JSONValue)]
    var sections: [Section]
}

/// Writes a ``Document`` in the chosen format.
enum DocumentRenderer {
    static func render(_ document: Document, context: RenderContext) {
        let out = context.output
        let object = JSONValue.object([("format", .string(jsonFormatTag)), ("kind", .string(document.kind))] + document.json)
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
            var first = true
            for section in document.sections {
                if !first { out.line() }
                first = false
                switch section {
                case .fields(_, let pairs):
                    out.line(CSV.row(["field", "value"]))
                    for (k, v) in pairs { out.line(CSV.row([k, v])) }
                case .table(_, let columns, let rows):
                    out.line(CSV.row(columns.map(\.title)))
                    for row in rows { out.line(CSV.row(row.map(\.text))) }
                case .note(let text):
                    out.line(CSV.row(["note", text]))
                }
            }
        case .table:
            var first = true
            for section in document.sections {
                if !first { out.line() }
                first = false
                switch section {
                case .fields(let title, let pairs):
                    if let title { for line in Self.wrapped(title, context) { out.line(context.style(line, .bold)) } }
                    let width = pairs.map { $0.0.cells }.max() ?? 0
                    // Values wrap at the terminal's width, under the value column (or, when the
                    // names leave too little room, under the names); a value of megabytes (a 10 MB
                    // author) is cut first, as in tables.
                    // A value whose id or number would not fit beside the names goes under its name.
                    let room = context.terminal.width.map { $0 - width - 2 } ?? Int.max
                    for (k, v) in pairs {
                        let value = TableLayout.clean(v)
                        let label = context.style(TableLayout.pad(k + ":", to: width + 1, right: false), .dim)
                        guard let total = context.terminal.width else {
                            out.line(label + " " + value)
                            continue
                        }
                        let longestNumber = TextWrap.units(value).filter { $0.count <= 40 && $0.contains(where: \.isNumber) }.map(\.cells).max() ?? 0
                        if room >= 20 && room >= longestNumber {
                            var lines = TextWrap.lines(value, width: room)
                            out.line(label + " " + lines.removeFirst())
                            for line in lines { out.line(String(repeating: " ", count: width + 2) + line) }
                        } else {
                            out.line(context.style(k + ":", .dim))
                            for line in TextWrap.lines(value, width: total - 2) { out.line("  " + line) }
                        }
                    }
                case .table(let title, let columns, let rows):
                    if let title { for line in Self.wrapped(title, context) { out.line(context.style(line, .bold)) } }
                    // Laid out from every row, and alike for tables of the same columns (authors' four).
                    let titles = columns.map(\.title)
                    let alike = document.sections.flatMap { section -> [[Cell]] in
                        guard case .table(_, let other, let otherRows) = section, other.map(\.title) == titles else { return [] }
                        return otherRows
                    }
                    let layout = TableLayout(columns: columns, rows: alike, totalWidth: context.terminal.width)
                    let table = ListRenderer(context: context, kind: "rows", columns: columns, layout: layout)
                    for row in rows { table.add(cells: row) }
                    table.finish()
                case .note(let text):
                    for line in Self.wrapped(text, context) { out.line(line) }
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
