import HistoryKit

/// Writes plain changes (``PlainChange``: no warning, no tombstone) as the export's
/// NDJSON and CSV give any change, byte for byte, from each entity's fields formatted
/// once: its name, object-ID prefix and property names are copied, not escaped, per
/// change, and no ``Change`` is built. Made once per export and shared by its threads.
final class PlainChangeWriter: Sendable {
    /// One entity's constant bytes.
    private final class EntityBytes: Sendable {
        /// `,"changeType":"insert","entity":…,"entityNumber":…,"entityPK":` (and for "update").
        let jsonInsertHead: [UInt8], jsonUpdateHead: [UInt8]
        /// `,"changedObjectID":"x-coredata://…/p` (the object's number and the closing quote follow).
        let jsonObjectID: [UInt8]
        /// `update,ENTITY,` and `insert,ENTITY,` as CSV fields.
        let csvInsertHead: [UInt8], csvUpdateHead: [UInt8]
        /// The object ID field around the object's number.
        let csvObjectIDHead: [UInt8], csvObjectIDTail: [UInt8]
        /// Each slot's property name as a JSON string, and as CSV text.
        let jsonNames: FlatStrings, csvNames: FlatStrings
        /// No property name needs CSV quoting (else CSV rows of updates are written as decoded changes).
        let csvNamesPlain: Bool
        /// For a slot whose property has several slots, those of them before it (the name is
        /// written once, at its first set slot); empty for the others.
        let earlierSlotsOfName: [[Int]]
        let namesRepeat: Bool

        init(_ entity: DecodedEntity) {
            func json(_ write: (inout JSONBytes) -> Void) -> [UInt8] {
                var s = JSONBytes()
                write(&s)
                return s.bytes
            }
            func csv(_ text: String) -> [UInt8] {
                var out: [UInt8] = []
                CSV.field(text, to: &out)
                return out
            }
            func head(_ type: String) -> [UInt8] {
                Array(",\"changeType\":\"\(type)\",\"entity\":".utf8) + json { $0.string(entity.name) }
                    + Array(",\"entityNumber\":".utf8) + json { $0.int(entity.number) } + Array(",\"entityPK\":".utf8)
            }
            jsonInsertHead = head("insert")
            jsonUpdateHead = head("update")
            jsonObjectID = Array(",\"changedObjectID\":".utf8) + json { $0.string(entity.objectIDPrefix) }.dropLast()
            csvInsertHead = Array("insert,".utf8) + csv(entity.name) + [UInt8(ascii: ",")]
            csvUpdateHead = Array("update,".utf8) + csv(entity.name) + [UInt8(ascii: ",")]
            // Digits never need quoting: the prefix decides, and quotes go around prefix and number.
            let prefix = csv(entity.objectIDPrefix)
            if prefix.first == UInt8(ascii: "\"") {
                csvObjectIDHead = Array(prefix.dropLast())
                csvObjectIDTail = [UInt8(ascii: "\"")]
            } else {
                csvObjectIDHead = prefix
                csvObjectIDTail = []
            }
            let names = entity.layout?.slots.map(\.propertyName) ?? []
            jsonNames = FlatStrings(names.map { name in json { $0.string(name) } })
            csvNames = FlatStrings(names.map { Array($0.utf8) })
            csvNamesPlain = names.allSatisfy { csv($0) == Array($0.utf8) }
            var slotsOfName: [String: [Int]] = [:]
            earlierSlotsOfName = names.enumerated().map { slot, name in
                defer { slotsOfName[name, default: []].append(slot) }
                return slotsOfName[name] ?? []
            }
            namesRepeat = earlierSlotsOfName.contains { !$0.isEmpty }
        }

        /// Calls `body` with each property the update sets, once, in slot order.
        func forEachUpdatedName(_ change: PlainChange, _ body: (Int) -> Void) {
            guard namesRepeat, let columns = change.columns else {
                change.forEachUpdatedSlot(body)
                return
            }
            change.forEachUpdatedSlot { slot in
                let written = earlierSlotsOfName[slot].contains { columns[$0 / 8] & (0x80 >> UInt8($0 % 8)) != 0 }
                if !written { body(slot) }
            }
        }
    }

    private let entities: [EntityBytes]

    init(decoder: ChangeDecoder) {
        entities = decoder.entities.map(EntityBytes.init)
    }

    private static let changeIDKey = Array("{\"changeID\":".utf8)
    private static let transactionNumberKey = Array(",\"transactionNumber\":".utf8)
    private static let insertTail = Array("\",\"updatedProperties\":null,\"updatedSlots\":null,\"tombstone\":null}".utf8)
    private static let propertiesKey = Array("\",\"updatedProperties\":[".utf8)
    private static let slotsKey = Array("],\"updatedSlots\":[".utf8)
    private static let updateTail = Array("],\"tombstone\":null}".utf8)

    /// The change's JSON object, as ``HistoryPresenter`` writes a change without a label.
    func json(_ change: PlainChange, to out: inout [UInt8]) {
        let entity = entities[change.entity.index]
        out += Self.changeIDKey
        JSONValue.writeInt(change.changeID, to: &out)
        out += Self.transactionNumberKey
        JSONValue.writeInt(change.transactionNumber, to: &out)
        out += change.isUpdate ? entity.jsonUpdateHead : entity.jsonInsertHead
        JSONValue.writeInt(change.entityPK, to: &out)
        out += entity.jsonObjectID
        JSONValue.writeInt(change.entityPK, to: &out)
        guard change.isUpdate else {
            out += Self.insertTail
            return
        }
        out += Self.propertiesKey
        var first = true
        entity.forEachUpdatedName(change) { slot in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            entity.jsonNames.append(slot, to: &out)
        }
        out += Self.slotsKey
        first = true
        change.forEachUpdatedSlot { slot in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.writeInt(Int64(slot), to: &out)
        }
        out += Self.updateTail
    }

    /// The change's fields of a CSV row (after the transaction's and their comma, up to the
    /// line's end), as ``CSVExport`` writes a change; false, writing nothing, when its
    /// property names need quoting.
    func csv(_ change: PlainChange, to out: inout [UInt8]) -> Bool {
        let entity = entities[change.entity.index]
        if change.isUpdate && !entity.csvNamesPlain { return false }
        JSONValue.writeInt(change.changeID, to: &out)
        out.append(UInt8(ascii: ","))
        out += change.isUpdate ? entity.csvUpdateHead : entity.csvInsertHead
        JSONValue.writeInt(change.entityPK, to: &out)
        out.append(UInt8(ascii: ","))
        out += entity.csvObjectIDHead
        JSONValue.writeInt(change.entityPK, to: &out)
        out += entity.csvObjectIDTail
        out.append(UInt8(ascii: ","))
        var first = true
        entity.forEachUpdatedName(change) { slot in
            if !first { out.append(UInt8(ascii: " ")) }
            first = false
            entity.csvNames.append(slot, to: &out)
        }
        out.append(UInt8(ascii: ","))
        return true
    }
}

/// Byte strings kept end to end in one array: appending one copies it without
/// retaining an array per string.
struct FlatStrings: Sendable {
    private let bytes: [UInt8]
    /// String i is `bytes[ends[i - 1] ..< ends[i]]` (from 0 for the first).
    private let ends: [Int]

    init(_ strings: [[UInt8]]) {
        bytes = strings.flatMap { $0 }
        var end = 0
        ends = strings.map { end += $0.count; return end }
    }

    func append(_ i: Int, to out: inout [UInt8]) {
        let start = i == 0 ? 0 : ends[i - 1]
        bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<ends[i]])) }
    }
}
