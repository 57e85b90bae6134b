import HistoryReading

/// The `ZCOLUMNS` slot layout checked against what the saves really changed: for every update
/// the `-wal`'s saves hold, the properties whose stored values differ between the store before
/// and after its save are compared with the properties its `ZCOLUMNS` names. A property whose
/// value changed without its bit is a decoding error; a bit without a changed value is normal (a
/// property set to the value it had). To-many relationships are kept in other rows and are left
/// out, as are Core Data's bookkeeping columns (`Z_OPT`), which belong to no property. Columns
/// Core Data's own triggers write (derived and count attributes, ``TriggerColumns``) change
/// without a bit by design: they are counted apart and weigh for no layout. Updates of a save
/// whose states are not exact (a checkpoint overwrote a page they read) are left out.
public struct SlotCheck: Sendable {
    /// A property that changed in a save without its update naming it.
    public struct Miss: Equatable, Sendable {
        public var changeID: Int64
        public var transactionNumber: Int64
        public var entity: String
        public var property: String
    }

    /// A slot layout that relies on an attribute whose slots are not established (derived,
    /// composite), tried against the saves: every changed property at a later slot whose bit is
    /// set supports the layout; one without its bit refutes it.
    public struct LayoutEvidence: Equatable, Sendable {
        public var entity: String
        /// The derived or composite attribute, and the slot the layout gives it.
        public var property: String
        public var slot: Int
        /// Changed properties at later slots whose bits are set.
        public var supporting = 0
        /// Changed properties at later slots without their bits.
        public var refuting = 0
        /// Established: later slots were tried and none refuted it.
        public var isEstablished: Bool { supporting > 0 && refuting == 0 }
    }

    /// Updates compared.
    public var updates = 0
    /// Properties whose value changed, counted per update.
    public var changedProperties = 0
    /// Changed properties the update's bits name.
    public var named = 0
    /// Bits whose property kept its value (set to what it was).
    public var unchangedBits = 0
    /// Changed properties without their bit: decoding errors.
    public var misses: [Miss] = []
    /// Updates whose object had no row on one side (its row is not in the store at that save).
    public var skipped = 0
    /// Updates left out because a state of their save is partial (``SaveExactness``).
    public var partial = 0
    /// Property values that changed in a column Core Data's triggers write.
    public var byTrigger = 0
    /// Those properties, as `Entity.property`, each once, in the order first met.
    public var triggerProperties: [String] = []
    /// Each layout that relies on a derived or composite attribute, as the saves bear it out.
    public var uncertainLayouts: [LayoutEvidence] = []

    /// Compares every update of the transactions the saves of `values`' store hold; `decoder`
    /// decodes their changes.
    public static func run(_ values: SaveValues, decoder: ChangeDecoder) throws -> SlotCheck {
        var check = SlotCheck()
        guard let window = values.window else { return check }
        // For each entity, its layout's slot of every derived or composite attribute it has.
        var uncertain: [Int64: (layout: SlotLayout, slots: [(name: String, index: Int)])] = [:]
        func uncertainSlots(_ change: Change) -> (layout: SlotLayout, slots: [(name: String, index: Int)])? {
            if let known = uncertain[change.entityNumber] { return known }
            guard let layout = decoder.layout(forEntity: change.entityNumber), let model = values.model else {
                return nil
            }
            var flagged = Set<String>()
            for entity in model.entities {
                for property in entity.properties {
                    guard case .attribute(let info) = property.kind, info.isDerived || info.isComposite else {
                        continue
                    }
                    flagged.insert(property.name)
                }
            }
            let slots = layout.slots.filter { flagged.contains($0.propertyName) }.map {
                (name: $0.propertyName, index: $0.index)
            }
            uncertain[change.entityNumber] = (layout, slots)
            return (layout, slots)
        }
        let triggers = try TriggerColumns.read(values.store)
        let bounds = HistoryQuery.Bound.around(window)
        try values.store.readChanges(
            HistoryQuery(after: bounds.after, before: bounds.before, changeTypes: [.update]), decoder: decoder,
            layout: .oneRead
        ) {
            try $0.forEach { change in
                guard let named = change.updatedProperties, let sides = try values.rows(change) else {
                    check.skipped += 1
                    return
                }
                guard sides.why == nil else {
                    check.partial += 1
                    return
                }
                check.updates += 1
                let before = Dictionary(sides.before.map { ($0.name, $0.content) }, uniquingKeysWith: { a, _ in a })
                let layout = uncertainSlots(change)
                // Each changed property at a slot after a derived or composite attribute's bears its layout out.
                func weigh(_ property: String, named: Bool) {
                    guard let layout,
                        let slot = layout.layout.slots.first(where: { $0.propertyName == property })?.index
                    else { return }
                    for flagged in layout.slots where flagged.index < slot {
                        var evidence =
                            check.uncertainLayouts.first {
                                $0.entity == layout.layout.entityName && $0.property == flagged.name
                            }
                            ?? LayoutEvidence(
                                entity: layout.layout.entityName, property: flagged.name, slot: flagged.index)
                        if named { evidence.supporting += 1 } else { evidence.refuting += 1 }
                        if let i = check.uncertainLayouts.firstIndex(where: {
                            $0.entity == evidence.entity && $0.property == evidence.property
                        }) {
                            check.uncertainLayouts[i] = evidence
                        } else {
                            check.uncertainLayouts.append(evidence)
                        }
                    }
                }
                for property in sides.after {
                    if case .toMany = property.content { continue }
                    if case .unread = property.content { continue }
                    let changed = before[property.name].map { $0 != property.content } ?? false
                    if changed, let column = property.column, triggers.contains(table: sides.table, column: column) {
                        check.byTrigger += 1
                        let name = "\(change.entityName ?? "?").\(property.name)"
                        if !check.triggerProperties.contains(name) { check.triggerProperties.append(name) }
                        continue
                    }
                    let bit = named.contains(property.name)
                    switch (changed, bit) {
                    case (true, true):
                        check.changedProperties += 1
                        check.named += 1
                        weigh(property.name, named: true)
                    case (true, false):
                        check.changedProperties += 1
                        weigh(property.name, named: false)
                        check.misses.append(
                            Miss(
                                changeID: change.changeID, transactionNumber: change.transactionNumber,
                                entity: change.entityName ?? "?", property: property.name))
                    case (false, true):
                        check.unchangedBits += 1
                    case (false, false):
                        break
                    }
                }
            }
        }
        return check
    }
}
