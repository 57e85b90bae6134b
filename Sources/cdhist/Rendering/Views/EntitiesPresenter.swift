import Foundation
import HistoryKit

/// `entities`: every entity with its number, table, change counts and slot layout; or one
/// entity's slots.
struct EntitiesPresenter {
    let catalog: EntityCatalog
    /// The slot layout of each entity number the model has.
    let layouts: [Int64: SlotLayout]
    /// Why there is no model, when there is none.
    let modelProblem: String?

    /// Every entity (or only `entity`'s slots) with the changes `tally` counted.
    func document(_ tally: EntityChangeTally, entity: String?) -> Document {
        let counts = tally.byEntity
        var rows: [[Cell]] = []
        var items: [(name: String, json: JSONValue)] = []
        for e in catalog.entities {
            let c = counts[e.number] ?? EntityChangeCounts()
            let slotLayout = layouts[e.number]
            let superName = catalog.entity(number: e.superNumber)?.name
            rows.append([
                Cell(String(e.number)), Cell(e.name), HistoryPresenter.optional(superName),
                Cell(catalog.rootTableName(of: e.number) ?? "-"),
                Cell(String(c.inserts)), Cell(String(c.updates)), Cell(String(c.deletes)),
                Cell(slotLayout.map { String($0.slots.count) } ?? "-"),
                Cell(slotLayout.map { $0.tombstoneAttributes.joined(separator: ", ") } ?? "-"),
            ])
            items.append((e.name, json(e, superName: superName, counts: c, layout: slotLayout, catalog: catalog)))
        }
        let unknown = counts.keys.filter { catalog.entity(number: $0) == nil }.sorted()
        var sections: [Document.Section] = [
            .table(
                title: nil,
                columns: [
                    Column("Z_ENT", alignRight: true), Column("Entity", fit: .wrap(min: 10), importance: .key),
                    Column("Super", fit: .wrap(min: 8)),
                    Column("Table"), Column("Inserts", alignRight: true), Column("Updates", alignRight: true),
                    Column("Deletes", alignRight: true), Column("Slots", alignRight: true),
                    Column("Tombstones", fit: .wrap(min: 12)),
                ], rows: rows)
        ]
        for n in unknown {
            sections.append(
                .note(
                    """
                    note: \(plural(counts[n]?.total ?? 0, "change")) \
                    \((counts[n]?.total ?? 0) == 1 ? "has" : "have") ZENTITY \(n), which Z_PRIMARYKEY does not \
                    name
                    """
                ))
        }
        if tally.withoutEntityNumber.total > 0 {
            let n = tally.withoutEntityNumber.total
            sections.append(
                .note(
                    """
                    note: \(n) change\(n == 1 ? " has" : "s have") a ZENTITY that is not an integer (NULL, text, \
                    a real or a blob)
                    """
                ))
        }
        var json: [(String, JSONValue)] = [("entities", .array(items.map(\.json)))]
        if let name = entity, let e = catalog.entity(named: name) {
            let slotLayout = layouts[e.number]
            if let layout = slotLayout {
                sections =
                    [
                        .table(
                            title: "\(name): \(layout.slots.count) slots, \(layout.byteLength) ZCOLUMNS bytes",
                            columns: [
                                Column("Slot", alignRight: true), Column("Property", flexible: true), Column("Role"),
                            ],
                            rows: layout.slots.map {
                                [Cell(String($0.index)), Cell($0.propertyName), Cell($0.role.rawValue)]
                            }),
                        .fields(
                            title: nil,
                            [
                                (
                                    "Tombstones",
                                    layout.tombstoneAttributes.isEmpty
                                        ? "none" : layout.tombstoneAttributes.joined(separator: ", ")
                                )
                            ]),
                    ]
                    + layout.notes.map { .note("note: \($0)") }
            } else {
                sections = [.note("\(name): no slot layout (\(modelProblem ?? "entity not in the model"))")]
            }
            json = [("entities", .array(items.filter { $0.name == name }.map(\.json)))]
        }
        return Document(kind: "entities", json: json, sections: sections)
    }

    private func json(
        _ e: CatalogEntity, superName: String?, counts c: EntityChangeCounts, layout: SlotLayout?,
        catalog: EntityCatalog
    ) -> JSONValue {
        var slots = JSONValue.null
        if let layout {
            slots = .array(
                layout.slots.map { s in
                    .object([
                        ("slot", .int(Int64(s.index))), ("property", .string(s.propertyName)),
                        ("role", .string(s.role.rawValue)),
                    ])
                })
        }
        let tombstones: JSONValue = layout.map { .array($0.tombstoneAttributes.map { .string($0) }) } ?? .null
        let notes: [JSONValue] = (layout?.notes ?? []).map { .string($0) }
        let pairs: [(String, JSONValue)] = [
            ("entity", .string(e.name)),
            ("entityNumber", .int(e.number)),
            ("superentity", .optional(superName)),
            ("rootTable", .optional(catalog.rootTableName(of: e.number))),
            ("maxPK", .int(e.max)),
            ("inserts", .int(Int64(c.inserts))),
            ("updates", .int(Int64(c.updates))),
            ("deletes", .int(Int64(c.deletes))),
            ("slots", slots),
            ("columnsBytes", .optional(layout?.byteLength)),
            ("tombstoneAttributes", tombstones),
            ("notes", .array(notes)),
        ]
        return .object(pairs)
    }
}
