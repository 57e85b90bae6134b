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
    /// Characters of a field value a table shows; JSON and CSV carry all of it.
    static let longestFieldValue = 1000

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
                    if let title { out.line(context.style(title, .bold)) }
                    let width = pairs.map { $0.0.count }.max() ?? 0
                    // Values wrap at the terminal's width, under the value column (or, when the
                    // names leave too little room, under the names); a value of megabytes (a 10 MB
                    // author) is cut first, as in tables.
                    let room = context.terminal.width.map { $0 - width - 2 }
                    let indent = room.map { $0 >= 30 ? width + 2 : 2 }
                    for (k, v) in pairs {
                        let value = TableLayout.truncate(v, to: Self.longestFieldValue)
                        let label = context.style(TableLayout.pad(k + ":", to: width + 1, right: false), .dim)
                        guard let indent, let total = context.terminal.width else {
                            out.line(label + " " + value)
                            continue
                        }
                        var lines = TextWrap.lines(value, width: total - indent)
                        if indent == width + 2 {
                            out.line(label + " " + lines.removeFirst())
                        } else {
                            out.line(label)
                        }
                        for line in lines { out.line(String(repeating: " ", count: indent) + line) }
                    }
                case .table(let title, let columns, let rows):
                    if let title { out.line(context.style(title, .bold)) }
                    let table = ListRenderer(context: context, kind: "rows", columns: columns)
                    for row in rows { table.add(cells: row) }
                    table.finish()
                case .note(let text):
                    out.line(text)
                }
            }
        }
        out.flush()
    }
}
