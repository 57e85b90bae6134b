/// A document's JSON as one CSV table in the export's dialect: its members' names, times as
/// the JSON has them (ISO 8601 UTC), empty cells for null. Members holding a value are rows of
/// `field,value` (a nested object's members named with dots: `files.main`); an array of
/// objects is a section of its own, a row per object under its members' names (``CSVRecord``).
/// With sections, a first column names each row's section (empty for the fields), and a
/// member named `field` or `value` shares that column.
enum CSVDocument {
    static func rows(_ json: [(String, JSONValue)]) -> [[String]] {
        var fields: [[String]] = []
        var sections: [(name: String, rows: [[(name: String, cell: String)]])] = []
        func add(_ name: String, _ value: JSONValue) {
            switch value {
            case .members(let keys, let values) where !keys.isEmpty:
                for (key, member) in zip(keys, values) { add(name + "." + key, member) }
            // An empty list too: the table has its section column whatever the data.
            case .array(let items) where items.allSatisfy(\.isObject):
                sections.append((name, items.map(CSVRecord.members)))
            default:
                fields.append([name, CSVRecord.cell(value)])
            }
        }
        for (name, value) in json { add(name, value) }
        guard !sections.isEmpty else { return [["field", "value"]] + fields }
        var columns = ["field", "value"]
        for section in sections {
            for row in section.rows {
                for member in row where !columns.contains(member.name) { columns.append(member.name) }
            }
        }
        var rows = [["section"] + columns]
        for field in fields { rows.append([""] + field + Array(repeating: "", count: columns.count - 2)) }
        for section in sections {
            for row in section.rows { rows.append([section.name] + CSVRecord.cells(row, under: columns)) }
        }
        return rows
    }
}

extension JSONValue {
    /// Whether this is an object.
    var isObject: Bool {
        if case .members = self { return true }
        return false
    }
}
