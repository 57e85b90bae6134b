/// Writes a JSON record as a CSV row as it is written, without a value tree: what
/// ``CSVRecord`` makes of the record under a header of its members, in their order (a header
/// name after the last member the record has, `warnings` when it has none, is an empty
/// cell). Each top-level member is a cell: text as it is, numbers and booleans as JSON writes
/// them, null (and a number no JSON number expresses) empty, a nested value as compact JSON,
/// and `updatedProperties`' names separated by spaces.
struct CSVRowSink: JSONSink {
    private(set) var bytes: [UInt8] = []
    private let raw: Bool
    /// Open containers: 1 inside the record's object.
    private var depth = 0
    /// Cells written.
    private var cells = 0
    /// The value of the current member when it is nested (depth 2 and deeper), as compact JSON.
    private var nested = JSONBytes()
    /// The current member is `updatedProperties`: its array's names, joined as they come.
    private var joining = false
    private var joined: [UInt8] = []
    private var joinedParts = 0
    private var scratch: [UInt8] = []
    /// The member whose names are joined.
    private static let joinedName = Array("updatedProperties".utf8)

    init(raw: Bool) {
        self.raw = raw
    }

    /// Empties the row for the next record, keeping the storage.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        depth = 0
        cells = 0
    }

    /// Ends the row under a header of `count` names: an empty cell for each the record lacked.
    mutating func finish(cellCount count: Int) {
        while cells < count { startCell() }
    }

    private mutating func startCell() {
        if cells > 0 { bytes.append(UInt8(ascii: ",")) }
        cells += 1
    }

    /// A top-level value's text as a cell (the cell was started by its key).
    private mutating func cell<Bytes: Collection<UInt8>>(_ text: Bytes) {
        CSV.field(bytes: text, to: &bytes, raw: raw)
    }

    /// A name of `updatedProperties`, after a space from the one before.
    private mutating func part(_ write: (inout [UInt8]) -> Void) {
        if joinedParts > 0 { joined.append(UInt8(ascii: " ")) }
        joinedParts += 1
        write(&joined)
    }

    mutating func beginObject() {
        depth += 1
        if depth == 1 { return }
        if depth == 2 { nested.reset() }
        nested.beginObject()
    }

    mutating func endObject() {
        depth -= 1
        if depth == 0 { return }
        nested.endObject()
        if depth == 1 { cell(nested.bytes) }
    }

    mutating func beginArray() {
        depth += 1
        if depth == 2 && joining {
            joined.removeAll(keepingCapacity: true)
            joinedParts = 0
            return
        }
        if depth == 2 { nested.reset() }
        nested.beginArray()
    }

    mutating func endArray() {
        depth -= 1
        if depth == 1 && joining { return cell(joined) }
        nested.endArray()
        if depth == 1 { cell(nested.bytes) }
    }

    mutating func key(_ name: StaticString) {
        guard depth == 1 else { return nested.key(name) }
        startCell()
        joining =
            name.utf8CodeUnitCount == Self.joinedName.count
            && name.withUTF8Buffer { $0.elementsEqual(Self.joinedName) }
    }

    mutating func key(named name: String) {
        guard depth == 1 else { return nested.key(named: name) }
        startCell()
        joining = name.utf8.elementsEqual(Self.joinedName)
    }

    mutating func null() {
        if depth == 2 && joining { return part { _ in } }
        if depth > 1 { nested.null() }
    }

    mutating func bool(_ value: Bool) {
        if depth == 2 && joining { return part { $0 += value ? JSONValue.trueBytes : JSONValue.falseBytes } }
        guard depth == 1 else { return nested.bool(value) }
        cell(value ? JSONValue.trueBytes : JSONValue.falseBytes)
    }

    mutating func int(_ value: Int64) {
        if depth == 2 && joining { return part { JSONValue.writeInt(value, to: &$0) } }
        guard depth == 1 else { return nested.int(value) }
        number { JSONValue.writeInt(value, to: &$0) }
    }

    mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        if depth == 2 && joining { return part { JSONValue.writeDouble(value, to: &$0) } }
        guard depth == 1 else { return nested.double(value) }
        number { JSONValue.writeDouble(value, to: &$0) }
    }

    /// A top-level number as the cell its JSON is.
    private mutating func number(_ write: (inout [UInt8]) -> Void) {
        scratch.removeAll(keepingCapacity: true)
        write(&scratch)
        cell(scratch)
    }

    mutating func string(_ value: String) {
        if depth == 2 && joining { return part { $0 += value.utf8 } }
        guard depth == 1 else { return nested.string(value) }
        CSV.field(value, to: &bytes, raw: raw)
    }

    mutating func asciiString(_ value: UnsafeBufferPointer<UInt8>) {
        if depth == 2 && joining { return part { $0.append(contentsOf: value) } }
        guard depth == 1 else { return nested.asciiString(value) }
        cell(value)
    }
}
