/// Decodes `ACHANGE` rows into ``Change`` values using the entity catalog,
/// the model's slot layouts and the store's tombstone columns.
///
/// Decoding is honest: whatever cannot be mapped (unknown `ZENTITY`, no
/// model, a ZCOLUMNS of the wrong length, a bit past the last slot) is kept
/// as a ``DecodingWarning`` with the raw bytes, never dropped.
public struct ChangeDecoder: Sendable {
    public let storeUUID: String
    public let tombstoneColumnCount: Int
    /// The catalog's entities, by number.
    public let entities: [DecodedEntity]
    private let entitiesByLargeNumber: [Int64: DecodedEntity]
    /// The same entities indexed by number when the numbers are small (they
    /// count up from 1 in Core Data's catalog): an array read per change
    /// instead of hashing the number.
    private let entitiesByNumber: [DecodedEntity?]

    /// Numbers up to this are looked up in ``entitiesByNumber``.
    private static let denseLimit: Int64 = 65_536

    /// Prepares decoding for a store's catalog and schema with `model`.
    public init(storeUUID: String, catalog: EntityCatalog, schema: HistorySchema, model: ModelResolution) {
        self.storeUUID = storeUUID
        tombstoneColumnCount = schema.tombstoneColumns.count
        var infos: [Int64: DecodedEntity] = [:]
        var list: [DecodedEntity] = []
        for e in catalog.entities.sorted(by: { $0.number < $1.number }) where infos[e.number] == nil {
            var layout: SlotLayout?
            var missing: DecodingWarning?
            var types: [AttributeType?] = []
            if let m = model.model {
                layout = SlotLayout(entity: e.name, model: m)
                if let layout {
                    let attributes = m.allProperties(of: e.name)
                    types = layout.tombstoneAttributes.map { name in
                        attributes.first { $0.name == name }?.attribute?.type
                    }
                } else {
                    missing = DecodingWarning(
                        kind: .entityNotInModel,
                        message: "entity \(e.name) (Z_ENT \(e.number)) is not in the model")
                }
            } else {
                missing = DecodingWarning(kind: .noModel, message: "no model: \(model.problem ?? "none given")")
            }
            let entity = DecodedEntity(
                number: e.number, index: list.count, name: e.name,
                objectIDPrefix: "x-coredata://\(storeUUID)/\(e.name)/p",
                layout: layout, missingLayout: missing, tombstoneTypes: types)
            infos[e.number] = entity
            list.append(entity)
        }
        entities = list
        entitiesByLargeNumber = infos.filter { !(0...Self.denseLimit).contains($0.key) }
        let dense = infos.keys.filter { (0...Self.denseLimit).contains($0) }
        var byNumber = [DecodedEntity?](repeating: nil, count: Int(dense.max() ?? -1) + 1)
        for n in dense { byNumber[Int(n)] = infos[n] }
        entitiesByNumber = byNumber
    }

    /// Entity `number`; nil when the catalog lacks it.
    @inline(__always) public func entity(_ number: Int64) -> DecodedEntity? {
        if number >= 0 && number < Int64(entitiesByNumber.count) { return entitiesByNumber[Int(number)] }
        return number > Self.denseLimit || number < 0 ? entitiesByLargeNumber[number] : nil
    }

    /// The slot layout used for entity `number`, if the model has it.
    public func layout(forEntity number: Int64) -> SlotLayout? {
        entity(number)?.layout
    }

    /// The name of entity `number`, as decoded changes carry it.
    package func entityName(_ number: Int64) -> String? {
        entity(number)?.name
    }

    /// Decodes one row. `tombstones` holds `ZTOMBSTONE0…n` (nil for NULL);
    /// `warnings` are what reading the row found (columns of the wrong type),
    /// so the same column is not reported twice.
    public func decode(
        changeID: Int64, transactionNumber: Int64, changeTypeRaw: Int64, entityNumber: Int64,
        entityPK: Int64, columns: [UInt8]?, tombstones: [StoredValue?],
        warnings read: [DecodingWarning] = []
    ) -> Change {
        let type = ChangeType(rawValue: changeTypeRaw)
        var warnings = read
        // What reading found wrong; nearly always nothing, so no set (and no hashing) per change.
        func misread(_ column: String) -> Bool { !read.isEmpty && read.contains { $0.column == column } }
        if case .unknown(let raw) = type, !misread("ZCHANGETYPE") {
            warnings.append(
                DecodingWarning(
                    kind: .unknownChangeType, message: "ZCHANGETYPE \(raw) is not insert (0), update (1) or delete (2)")
            )
        }
        // A ZENTITY that is not an integer names no entity.
        let entityMisread = misread("ZENTITY")
        let info = entityMisread ? nil : entity(entityNumber)
        if info == nil, !entityMisread {
            warnings.append(
                DecodingWarning(
                    kind: .unknownEntity,
                    message: "ZENTITY \(entityNumber) is not in Z_PRIMARYKEY"))
        }
        var change = Change(
            changeID: changeID, transactionNumber: transactionNumber, changeType: type,
            entityNumber: entityNumber, entityName: info?.name, entityPK: entityPK,
            changedObjectID: misread("ZENTITYPK") ? nil : info.map { $0.objectIDPrefix + String(entityPK) },
            updatedSlots: nil, updatedProperties: nil, rawColumns: columns,
            tombstone: [], warnings: [])
        if type == .update {
            // A ZCOLUMNS that is not a BLOB was reported already; it has no bits to decode.
            if !misread("ZCOLUMNS") { decodeColumns(columns, info: info, into: &change, warnings: &warnings) }
        } else if type == .delete {
            decodeTombstones(tombstones, info: info, into: &change, warnings: &warnings)
        }
        change.warnings = warnings
        return change
    }

    /// The slots a `ZCOLUMNS` bitmask sets: bit 7 of byte 0 is slot 0.
    package static func slots(in columns: [UInt8]) -> [Int] {
        var count = 0
        for byte in columns { count += byte.nonzeroBitCount }
        var slots: [Int] = []
        slots.reserveCapacity(count)
        columns.withUnsafeBytes { forEachSetSlot(in: $0) { slots.append($0) } }
        return slots
    }

    /// Calls `body` with each slot a `ZCOLUMNS` bitmask sets, in order: bit 7 of byte 0 is slot 0.
    @inlinable public static func forEachSetSlot(in columns: UnsafeRawBufferPointer, _ body: (Int) throws -> Void)
        rethrows
    {
        for (byteIndex, byte) in columns.enumerated() where byte != 0 {
            // Set bits from the highest: each step takes the highest left.
            var rest = byte
            while rest != 0 {
                let bit = rest.leadingZeroBitCount
                try body(byteIndex * 8 + bit)
                rest &= ~(0x80 >> UInt8(bit))
            }
        }
    }

    private func decodeColumns(
        _ columns: [UInt8]?, info: DecodedEntity?, into change: inout Change,
        warnings: inout [DecodingWarning]
    ) {
        guard let columns else {
            warnings.append(DecodingWarning(kind: .missingColumns, message: "update without ZCOLUMNS"))
            return
        }
        let slots = Self.slots(in: columns)
        change.updatedSlots = slots
        guard let info else { return }
        guard let layout = info.layout else {
            if var w = info.missingLayout {
                w.message = "\(w.message); updated slots \(slots.map(String.init).joined(separator: ","))"
                w.rawHex = columns.hexString
                warnings.append(w)
            }
            return
        }
        if columns.count != layout.byteLength {
            warnings.append(
                DecodingWarning(
                    kind: .columnsLengthMismatch,
                    message:
                        """
                        ZCOLUMNS has \(columns.count) bytes; \(info.name) has \(layout.slots.count) slots, so \
                        \(layout.byteLength) bytes expected
                        """,
                    rawHex: columns.hexString))
        }
        let past = slots.filter { $0 >= layout.slots.count }
        if !past.isEmpty {
            warnings.append(
                DecodingWarning(
                    kind: .bitPastLastSlot,
                    message:
                        """
                        ZCOLUMNS bit \(past.map(String.init).joined(separator: ",")) past the last of \
                        \(info.name)'s \(layout.slots.count) slots
                        """,
                    rawHex: columns.hexString))
        }
        if !layout.notes.isEmpty {
            warnings.append(
                DecodingWarning(kind: .layoutUncertain, message: Message(layout.notes.joined(separator: "; "))))
        }
        change.updatedProperties = layout.propertyNames(forSlots: slots)
    }

    private func decodeTombstones(
        _ values: [StoredValue?], info: DecodedEntity?, into change: inout Change,
        warnings: inout [DecodingWarning]
    ) {
        guard let layout = info?.layout else {
            // No names: keep every value under its column name.
            var unnamed: [String] = []
            for (i, v) in values.enumerated() {
                guard let v else { continue }
                change.tombstone.append(TombstoneEntry(name: "ZTOMBSTONE\(i)", value: v, attributeType: nil))
                unnamed.append("ZTOMBSTONE\(i)")
            }
            if !unnamed.isEmpty {
                let why = info?.missingLayout?.message ?? "entity unknown"
                warnings.append(
                    DecodingWarning(
                        kind: .unnamedTombstone,
                        message: "tombstone values in \(unnamed.joined(separator: ",")) cannot be named (\(why))"))
            }
            return
        }
        let names = layout.tombstoneAttributes
        if names.count > values.count {
            warnings.append(
                DecodingWarning(
                    kind: .tombstoneColumnsMissing,
                    message:
                        """
                        \(layout.entityName) preserves \(names.count) attributes but the store has \
                        \(values.count) tombstone columns; \(names[values.count...].joined(separator: ",")) not \
                        recorded
                        """
                ))
        }
        // Values in slots at or past the entity's tombstone count are stale (migrations): ignored.
        for i in 0..<min(names.count, values.count) {
            guard let v = values[i] else { continue }
            let type = i < (info?.tombstoneTypes.count ?? 0) ? info?.tombstoneTypes[i] : nil
            change.tombstone.append(TombstoneEntry(name: names[i], value: v, attributeType: type))
        }
    }
}
