import Foundation

/// The ZCOLUMNS slot layout and the tombstone attribute list of one entity,
/// computed from the model as section 4 and 5 of the history format describe.
///
/// Slots: walk the inheritance chain from the root down to the entity; at
/// each level take its own stored properties sorted byte-wise by name; put
/// each into its group and concatenate the groups: to-one foreign keys,
/// to-one entity columns (destination has subentities), to-one ordering
/// columns (inverse is an ordered to-many), attributes, to-many with a to-one
/// inverse, many-to-many (or no inverse).
public struct SlotLayout: Equatable, Sendable {
    /// Which column a slot stands for.
    public enum Role: String, Equatable, Sendable {
        case toOneForeignKey, toOneEntityColumn, toOneOrderColumn, attribute, toManyInverseToOne, manyToMany
    }

    /// One ZCOLUMNS bit position.
    public struct Slot: Equatable, Sendable {
        public var index: Int
        public var propertyName: String
        public var role: Role
    }

    public var entityName: String
    public var slots: [Slot]
    /// Attribute names whose values `ZTOMBSTONE0…n` hold on delete, in column order.
    public var tombstoneAttributes: [String]
    /// Caveats about this layout (composite or derived attributes, unknown destinations).
    public var notes: [String]
    /// Whether slot i's property has other slots too (a to-one relationship's
    /// entity or order column), so its name may already be listed.
    private var sharesName: [Bool]

    /// The ZCOLUMNS length Core Data writes for this entity: `ceil(slots / 8)`.
    public var byteLength: Int { (slots.count + 7) / 8 }

    /// Whether a ZCOLUMNS of `length` bytes ending in `lastByte` (nil when empty) is one
    /// Core Data writes for this entity: ``byteLength`` long, no bit past the last slot
    /// (only the last byte can hold such bits).
    func fits(length: Int, lastByte: UInt8?) -> Bool {
        Self.fits(length: length, lastByte: lastByte, byteLength: byteLength, slotCount: slots.count)
    }

    /// ``fits(length:lastByte:)`` for a layout of `byteLength` bytes and `slotCount` slots.
    static func fits(length: Int, lastByte: UInt8?, byteLength: Int, slotCount: Int) -> Bool {
        guard length == byteLength else { return false }
        guard let lastByte, length > 0 else { return true }
        // Bit b of the last byte (b = 0 is 0x80) is slot 8 × (length − 1) + b.
        let firstSlot = 8 * (length - 1)
        return !(0..<8).contains { firstSlot + $0 >= slotCount && lastByte & (0x80 >> UInt8($0)) != 0 }
    }

    /// Computes the layout of `entityName`; nil when the model lacks it.
    public init?(entity entityName: String, model: ManagedObjectModel) {
        let chain = model.inheritanceChain(of: entityName)
        guard !chain.isEmpty else { return nil }
        self.entityName = entityName
        var notes: [String] = []
        var groups = [[(String, Role)]](repeating: [], count: 6)
        for level in chain {
            for p in level.properties where p.isStored {
                switch p.kind {
                case .attribute(let a):
                    if a.isComposite {
                        notes.append("composite attribute '\(p.name)' counted as one attribute slot (not established)")
                    }
                    if a.isDerived {
                        notes.append("derived attribute '\(p.name)' counted as one attribute slot (not established)")
                    }
                    groups[3].append((p.name, .attribute))
                case .relationship(let r):
                    let inverse = Self.inverse(of: r, in: model)
                    if r.destinationEntityName.map({ model.entity(named: $0) == nil }) ?? true {
                        notes.append("relationship '\(p.name)' has a destination missing from the model")
                    }
                    if r.isToMany {
                        if let inv = inverse, !inv.isToMany {
                            groups[4].append((p.name, .toManyInverseToOne))
                        } else {
                            groups[5].append((p.name, .manyToMany))
                        }
                    } else {
                        groups[0].append((p.name, .toOneForeignKey))
                        if let d = r.destinationEntityName, !model.subentityNames(of: d).isEmpty {
                            groups[1].append((p.name, .toOneEntityColumn))
                        }
                        if let inv = inverse, inv.isToMany, inv.isOrdered {
                            groups[2].append((p.name, .toOneOrderColumn))
                        }
                    }
                case .fetchedProperty, .expression:
                    break
                }
            }
        }
        slots = groups.joined().enumerated().map {
            Slot(index: $0.offset, propertyName: $0.element.0, role: $0.element.1)
        }
        let slotsPerName = Dictionary(slots.map { ($0.propertyName, 1) }, uniquingKeysWith: +)
        sharesName = slots.map { slotsPerName[$0.propertyName, default: 0] > 1 }
        tombstoneAttributes = Self.tombstones(chain: chain)
        self.notes = notes
    }

    /// The property names for set slot indexes, each once, in slot order;
    /// indexes past the last slot are left out (callers report them).
    public func propertyNames(forSlots indexes: [Int]) -> [String] {
        var names: [String] = []
        names.reserveCapacity(indexes.count)
        for i in indexes where i >= 0 && i < slots.count {
            let name = slots[i].propertyName
            // Only names with several slots can repeat (few, and few set at once): no hashing per change.
            if sharesName[i] && names.contains(name) { continue }
            names.append(name)
        }
        return names
    }

    private static func inverse(of r: RelationshipInfo, in model: ManagedObjectModel) -> RelationshipInfo? {
        guard let d = r.destinationEntityName, let name = r.inverseName else { return nil }
        return model.allProperties(of: d).first { $0.name == name }?.relationship
    }

    /// Legacy userInfo names (entity first, then superentities), then every
    /// attribute flagged "Preserve After Deletion" in slot order, each once.
    private static func tombstones(chain: [EntityDescription]) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for level in chain.reversed() {
            let legacy = level.userInfo["NSPersistentHistoryTombstoneAttributes"] ?? ""
            for raw in legacy.split(separator: ",") {
                let name = raw.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty, seen.insert(name).inserted { names.append(name) }
            }
        }
        for level in chain {
            for p in level.properties where p.isStored {
                if let a = p.attribute, a.preservesValueInHistoryOnDeletion, seen.insert(p.name).inserted {
                    names.append(p.name)
                }
            }
        }
        return names
    }
}
