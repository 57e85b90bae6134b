/// A JSON record as a CSV row in the export's dialect: its members' names as the header, text
/// as it is, numbers and booleans as JSON writes them, times as the record has them (ISO 8601
/// UTC), an empty cell for null, and a nested object or array as compact JSON.
enum CSVRecord {
    /// `object`'s members as names and cells (a value that is no object: one unnamed cell).
    static func members(_ object: JSONValue) -> [(name: String, cell: String)] {
        guard case .members(let keys, let values) = object else { return [("", cell(object))] }
        return zip(keys, values).map { key, value in
            // As export's CSV writes them: the property names separated by spaces.
            if key == "updatedProperties", case .array(let names) = value {
                return (
                    key,
                    names.map { if case .string(let name) = $0 { return name } else { return cell($0) } }.joined(
                        separator: " ")
                )
            }
            return (key, cell(value))
        }
    }

    /// `members`' cells under the header `names` (a name a record lacks: an empty cell). A record
    /// whose members are the header's, in order (every row of a list but the odd one), is taken as it is.
    static func cells(_ members: [(name: String, cell: String)], under names: [String]) -> [String] {
        if members.count == names.count && zip(members, names).allSatisfy({ $0.name == $1 }) {
            return members.map(\.cell)
        }
        let byName = Dictionary(members.map { ($0.name, $0.cell) }, uniquingKeysWith: { first, _ in first })
        return names.map { byName[$0] ?? "" }
    }

    /// `object` as a CSV row under the header `names` (``members(_:)`` and ``cells(_:under:)``),
    /// without its line's end.
    static func row(_ object: JSONValue, under names: [String], raw: Bool, to out: inout [UInt8]) {
        for (i, text) in cells(members(object), under: names).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            CSV.field(text, to: &out, raw: raw)
        }
    }

    /// One value as a cell.
    static func cell(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default: return value.serialized()
        }
    }
}

/// The rows of a CSV list of records under a header known before the first, in the export's
/// dialect (``CSVRecord``): for a list whose records' members are the header's names, in
/// order, but for names after their last (each an empty cell), as a change or transaction
/// list's records without labels or values are. Each row is written as its record writes
/// itself (``CSVRowSink``), with no value tree.
struct CSVRecordRows: Sendable {
    let names: [String]
    /// Text exactly as it is, formulas included (``CSV``).
    let raw: Bool

    init(names: [String], raw: Bool) {
        self.names = names
        self.raw = raw
    }

    /// `record` as a row, without its line's end, written through `sink` (emptied first).
    func write(_ record: some JSONRecord, through sink: inout CSVRowSink, to out: inout [UInt8]) {
        sink.reset()
        record.write(format: nil, to: &sink)
        sink.finish(cellCount: names.count)
        out += sink.bytes
    }

    /// A sink for ``write(_:through:to:)``.
    func makeSink() -> CSVRowSink { CSVRowSink(raw: raw) }
}
