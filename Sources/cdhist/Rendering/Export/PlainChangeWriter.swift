import HistoryKit

/// Writes plain changes (``PlainChange``: no warning, no tombstone) as the export's
/// NDJSON and CSV give any change, byte for byte, and as a change table's cells, from each
/// entity's fields formatted once: its name, object-ID prefix and property names are copied, not escaped, per
/// change, and no ``Change`` is built. A change is written through a ``ByteCursor``
/// into room on the stack and appended in one copy. Made once per export and shared
/// by its threads (unchecked: nothing changes after init).
final class PlainChangeWriter: @unchecked Sendable {
    /// One entity's constant bytes.
    private final class EntityBytes: Sendable {
        /// The pieces below, by index.
        private let pieces: PackedStrings
        private let slotCount: Int
        /// No property name needs CSV quoting (else CSV rows of updates are written as decoded changes).
        let csvNamesPlain: Bool
        /// Nor does any begin with a sign (else the names joined could read as a formula).
        let csvListNamesPlain: Bool
        /// The entity's number.
        let number: Int64
        /// Whether a table shows the entity's name and its property names as they are
        /// (``PlainRow/isPlain(_:)``; else its rows are made as text), and the name.
        let tablePlain: Bool
        var tableName: UnsafeBufferPointer<UInt8> { pieces[7 + 2 * slotCount] }
        /// For a slot whose property has several slots, those of them before it (the name is
        /// written once, at its first set slot); empty for the others.
        private let earlierSlotsOfName: [[Int]]
        private let namesRepeat: Bool
        /// Room a change's JSON or CSV needs at most: the fixed pieces, numbers, and per slot set.
        private let fixedRoom: Int
        private let roomPerSlot: Int

        /// `,"changeType":"insert","entity":…,"entityNumber":…,"entityPK":` (and for "update").
        var jsonInsertHead: UnsafeBufferPointer<UInt8> { pieces[0] }
        var jsonUpdateHead: UnsafeBufferPointer<UInt8> { pieces[1] }
        /// `,"changedObjectID":"x-coredata://…/p` (the object's number and the closing quote follow).
        var jsonObjectID: UnsafeBufferPointer<UInt8> { pieces[2] }
        /// `insert,ENTITY,` and `update,ENTITY,` as CSV fields.
        var csvInsertHead: UnsafeBufferPointer<UInt8> { pieces[3] }
        var csvUpdateHead: UnsafeBufferPointer<UInt8> { pieces[4] }
        /// The object ID field around the object's number.
        var csvObjectIDHead: UnsafeBufferPointer<UInt8> { pieces[5] }
        var csvObjectIDTail: UnsafeBufferPointer<UInt8> { pieces[6] }
        /// Slot `slot`'s property name as a JSON string, and as CSV text.
        func jsonName(_ slot: Int) -> UnsafeBufferPointer<UInt8> { pieces[7 + slot] }
        func csvName(_ slot: Int) -> UnsafeBufferPointer<UInt8> { pieces[7 + slotCount + slot] }

        init(_ entity: DecodedEntity, csvRaw: Bool) {
            func json(_ write: (inout JSONBytes) -> Void) -> [UInt8] {
                var s = JSONBytes()
                write(&s)
                return s.bytes
            }
            func csv(_ text: String) -> [UInt8] {
                var out: [UInt8] = []
                CSV.field(text, to: &out, raw: csvRaw)
                return out
            }
            func head(_ type: String) -> [UInt8] {
                Array(",\"changeType\":\"\(type)\",\"entity\":".utf8) + json { $0.string(entity.name) }
                    + Array(",\"entityNumber\":".utf8) + json { $0.int(entity.number) } + Array(",\"entityPK\":".utf8)
            }
            // Digits never need quoting: the prefix decides, and quotes go around prefix and number.
            let prefix = csv(entity.objectIDPrefix)
            let quoted = prefix.first == UInt8(ascii: "\"")
            let names = entity.layout?.slots.map(\.propertyName) ?? []
            let jsonNames = names.map { name in json { $0.string(name) } }
            let csvNames = names.map { Array($0.utf8) }
            let pieces = PackedStrings(
                [
                    head("insert"), head("update"),
                    Array(",\"changedObjectID\":".utf8) + json { $0.string(entity.objectIDPrefix) }.dropLast(),
                    Array("insert,".utf8) + csv(entity.name) + [UInt8(ascii: ",")],
                    Array("update,".utf8) + csv(entity.name) + [UInt8(ascii: ",")],
                    quoted ? Array(prefix.dropLast()) : prefix, quoted ? [UInt8(ascii: "\"")] : [],
                ] + jsonNames + csvNames + [Array(entity.name.utf8)])
            self.pieces = pieces
            slotCount = names.count
            csvNamesPlain = names.allSatisfy { csv($0) == Array($0.utf8) }
            csvListNamesPlain = csvNamesPlain && !names.contains { $0.hasPrefix("-") || $0.hasPrefix("+") }
            number = entity.number
            var slotsOfName: [String: [Int]] = [:]
            earlierSlotsOfName = names.enumerated().map { slot, name in
                defer { slotsOfName[name, default: []].append(slot) }
                return slotsOfName[name] ?? []
            }
            namesRepeat = earlierSlotsOfName.contains { !$0.isEmpty }
            tablePlain =
                entity.layout != nil && PlainRow.isPlain(entity.name.utf8) && csvNames.allSatisfy(PlainRow.isPlain)
            // The longest pieces, eight numbers, and brackets and commas.
            fixedRoom = (0..<7).map { pieces[$0].count }.reduce(0, +) + 8 * ByteCursor.intRoom + 256
            roomPerSlot = pieces.longest + ByteCursor.intRoom + 2
        }

        deinit { pieces.free() }

        /// Room the change's JSON or CSV fields need at most.
        func room(_ change: PlainChange) -> Int {
            guard change.isUpdate, let columns = change.columns else { return fixedRoom }
            var set = 0
            for byte in columns { set += byte.nonzeroBitCount }
            return fixedRoom + set * roomPerSlot
        }

        /// The names of the properties the update sets, each once, in slot order, as `name` gives
        /// a slot's, with `separator` between them.
        func writeNames(
            _ change: PlainChange, separator: UInt8, to w: inout ByteCursor, _ name: (Int) -> UnsafeBufferPointer<UInt8>
        ) {
            var first = true
            forEachUpdatedSlot(change) { slot, repeated in
                guard !repeated else { return }
                if !first { w.byte(separator) }
                first = false
                w.bytes(name(slot))
            }
        }

        /// Calls `body` with each slot the update sets, from the first, and whether its
        /// property's name was written at an earlier slot.
        func forEachUpdatedSlot(_ change: PlainChange, _ body: (_ slot: Int, _ repeated: Bool) -> Void) {
            guard namesRepeat, let columns = change.columns else {
                return change.forEachUpdatedSlot { body($0, false) }
            }
            change.forEachUpdatedSlot { slot in
                body(slot, earlierSlotsOfName[slot].contains { columns[$0 / 8] & (0x80 >> UInt8($0 % 8)) != 0 })
            }
        }
    }

    /// Each entity's bytes, by ``DecodedEntity/index``; `unretained` the same, read per change
    /// without retaining (`entities` keeps them).
    private let entities: [EntityBytes]
    private let unretained: UnsafeMutableBufferPointer<Unmanaged<EntityBytes>>

    /// `csvRaw`: CSV names exactly as they are, formulas included (``CSV``).
    init(decoder: ChangeDecoder, csvRaw: Bool) {
        entities = decoder.entities.map { EntityBytes($0, csvRaw: csvRaw) }
        unretained = .allocate(capacity: entities.count)
        _ = unretained.initialize(from: entities.map { Unmanaged.passUnretained($0) })
    }

    deinit { unretained.deallocate() }

    private func entity(_ change: PlainChange) -> EntityBytes { unretained[change.entityIndex].takeUnretainedValue() }

    private static let jsonPieces = PackedStrings(
        [
            "{\"changeID\":", ",\"transactionNumber\":",
            "\",\"updatedProperties\":null,\"updatedSlots\":null,\"tombstone\":null}",
            "\",\"updatedProperties\":[", "],\"updatedSlots\":[", "],\"tombstone\":null}",
            "{\"format\":\"\(jsonFormatTag)\",\"changeID\":",
        ].map { Array($0.utf8) })

    /// Writes up to `room` bytes through a cursor on the stack, then appends them to `out` at once.
    private static func append(to out: inout [UInt8], room: Int, _ write: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            var cursor = ByteCursor(buffer)
            write(&cursor)
            out.append(contentsOf: cursor.written)
        }
    }

    /// The change's JSON object, as ``HistoryPresenter`` writes a change without a label;
    /// `tagged`: with the format's tag first, as an NDJSON record of a change list.
    func json(_ change: PlainChange, tagged: Bool = false, to out: inout [UInt8]) {
        let entity = entity(change)
        let p = Self.jsonPieces
        Self.append(to: &out, room: entity.room(change) + p[6].count) { w in
            w.bytes(tagged ? p[6] : p[0])
            w.int(change.changeID)
            w.bytes(p[1])
            w.int(change.transactionNumber)
            w.bytes(change.isUpdate ? entity.jsonUpdateHead : entity.jsonInsertHead)
            w.int(change.entityPK)
            w.bytes(entity.jsonObjectID)
            w.int(change.entityPK)
            guard change.isUpdate else {
                w.bytes(p[2])
                return
            }
            w.bytes(p[3])
            entity.writeNames(change, separator: UInt8(ascii: ","), to: &w, entity.jsonName)
            w.bytes(p[4])
            var first = true
            entity.forEachUpdatedSlot(change) { slot, _ in
                if !first { w.byte(UInt8(ascii: ",")) }
                first = false
                w.int(Int64(slot))
            }
            w.bytes(p[5])
        }
    }

    /// The change's cells in a change table without labels or values (change, transaction,
    /// type, entity, object, updated properties), as ``HistoryPresenter`` makes them; the row is
    /// not plain (``PlainRow/isPlain``) when a name is not shown as it is.
    func tableCells(_ change: PlainChange, to row: inout PlainRow) {
        let entity = entity(change)
        guard entity.tablePlain else { return row.markNotPlain() }
        row.appendCell(change.changeID)
        row.appendCell(change.transactionNumber)
        let type: StaticString = change.isUpdate ? "update" : "insert"
        row.appendCell(plain: UnsafeBufferPointer(start: type.utf8Start, count: type.utf8CodeUnitCount))
        row.appendCell(plain: entity.tableName)
        row.appendCell(change.entityPK)
        // Room as for the JSON names (each longer than the name and its separator).
        row.appendCell(room: entity.room(change)) { w in
            var first = true
            entity.forEachUpdatedSlot(change) { slot, repeated in
                guard !repeated else { return }
                if !first {
                    w.byte(UInt8(ascii: ","))
                    w.byte(UInt8(ascii: " "))
                }
                first = false
                w.bytes(entity.csvName(slot))
            }
        }
    }

    /// Whether ``listCSV(_:to:)`` writes the change: not an update whose property names need
    /// CSV quoting (it is written as a decoded change).
    func writesListCSV(_ change: PlainChange) -> Bool {
        !change.isUpdate || entity(change).csvListNamesPlain
    }

    /// The change's cells of a change list's CSV row (after its transaction's and their comma,
    /// without the line's end), as ``CSVRecord`` writes ``HistoryPresenter``'s record of the
    /// change with its transaction, when ``writesListCSV(_:)``.
    func listCSV(_ change: PlainChange, to out: inout [UInt8]) {
        let entity = entity(change)
        Self.append(to: &out, room: entity.room(change)) { w in
            let comma = UInt8(ascii: ",")
            Self.writeCSVHead(change, entity, entityNumber: true, to: &w)
            if change.isUpdate {
                entity.writeNames(change, separator: UInt8(ascii: " "), to: &w, entity.csvName)
                w.byte(comma)
                // The slots as a JSON array, quoted when a comma is in it.
                var slots = 0
                entity.forEachUpdatedSlot(change) { _, _ in slots += 1 }
                if slots > 1 { w.byte(UInt8(ascii: "\"")) }
                w.byte(UInt8(ascii: "["))
                var first = true
                entity.forEachUpdatedSlot(change) { slot, _ in
                    if !first { w.byte(comma) }
                    first = false
                    w.int(Int64(slot))
                }
                w.byte(UInt8(ascii: "]"))
                if slots > 1 { w.byte(UInt8(ascii: "\"")) }
            } else {
                w.byte(comma)
            }
            // No tombstone, no warnings.
            w.byte(comma)
            w.byte(comma)
        }
    }

    /// Whether ``csv(_:to:)`` writes the change: not an update whose property names need
    /// CSV quoting (it is written as a decoded change).
    func writesCSV(_ change: PlainChange) -> Bool {
        !change.isUpdate || entity(change).csvNamesPlain
    }

    /// The change's fields of a CSV row (after the transaction's and their comma, up to the
    /// line's end), as ``CSVExport`` writes a change, when ``writesCSV(_:)``.
    func csv(_ change: PlainChange, to out: inout [UInt8]) {
        let entity = entity(change)
        Self.append(to: &out, room: entity.room(change)) { w in
            Self.writeCSVHead(change, entity, entityNumber: false, to: &w)
            entity.writeNames(change, separator: UInt8(ascii: " "), to: &w, entity.csvName)
            w.byte(UInt8(ascii: ","))
        }
    }

    /// A change's CSV cells from its ID to its object ID, each with the comma after it:
    /// ID, type, entity, the entity's number when `entityNumber`, key and object ID.
    private static func writeCSVHead(
        _ change: PlainChange, _ entity: EntityBytes, entityNumber: Bool, to w: inout ByteCursor
    ) {
        let comma = UInt8(ascii: ",")
        w.int(change.changeID)
        w.byte(comma)
        w.bytes(change.isUpdate ? entity.csvUpdateHead : entity.csvInsertHead)
        if entityNumber {
            w.int(entity.number)
            w.byte(comma)
        }
        w.int(change.entityPK)
        w.byte(comma)
        w.bytes(entity.csvObjectIDHead)
        w.int(change.entityPK)
        w.bytes(entity.csvObjectIDTail)
        w.byte(comma)
    }
}
