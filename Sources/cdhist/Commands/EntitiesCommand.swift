import ArgumentParser
import HistoryKit

/// `cdhist entities STORE`: entities with change counts, slot layouts and tombstone attributes.
struct EntitiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entities",
        abstract: "List entities: change counts, ZCOLUMNS slot layout and tombstone attributes.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist entities [<options>] <store>")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Show the ZCOLUMNS slot layout of this entity.", valueName: "name"))
    var entity: String?

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let session = try Session.open(storeOptions, output: outputOptions)
        session.noteModelProblem()
        let store = session.store
        let tally = try store.entityChangeCounts()
        let counts = tally.byEntity
        if let name = entity, store.catalog.entity(named: name) == nil {
            throw QueryError.unknownEntity(name: name, known: store.catalog.entities.map(\.name))
        }
        var rows: [[Cell]] = []
        var items: [(name: String, json: JSONValue)] = []
        for e in store.catalog.entities {
            let c = counts[e.number] ?? EntityChangeCounts()
            let layout = session.decoder.layout(forEntity: e.number)
            let superName = store.catalog.entity(number: e.superNumber)?.name
            rows.append([Cell(String(e.number)), Cell(e.name), HistoryPresenter.optional(superName),
                         Cell(store.catalog.rootTableName(of: e.number) ?? "-"),
                         Cell(String(c.inserts)), Cell(String(c.updates)), Cell(String(c.deletes)),
                         Cell(layout.map { String($0.slots.count) } ?? "-"),
                         Cell(layout.map { $0.tombstoneAttributes.joined(separator: ", ") } ?? "-")])
            items.append((e.name, Self.json(e, superName: superName, counts: c, layout: layout, catalog: store.catalog)))
        }
        let unknown = counts.keys.filter { store.catalog.entity(number: $0) == nil }.sorted()
        var sections: [Document.Section] = [.table(title: nil, columns: [
            Column("Z_ENT", alignRight: true), Column("Entity", fit: .wrap(min: 10), importance: .key), Column("Super", fit: .wrap(min: 8)),
            Column("Table"), Column("Inserts", alignRight: true), Column("Updates", alignRight: true),
            Column("Deletes", alignRight: true), Column("Slots", alignRight: true), Column("Tombstones", fit: .wrap(min: 12)),
        ], rows: rows)]
        for n in unknown {
            sections.append(.note("note: \(plural(counts[n]?.total ?? 0, "change")) \((counts[n]?.total ?? 0) == 1 ? "has" : "have") ZENTITY \(n), which Z_PRIMARYKEY does not name"))
        }
        if tally.withoutEntityNumber.total > 0 {
            let n = tally.withoutEntityNumber.total
            sections.append(.note("note: \(n) change\(n == 1 ? " has" : "s have") a ZENTITY that is not an integer (NULL, text, a real or a blob)"))
        }
        var json: [(String, JSONValue)] = [("entities", .array(items.map(\.json)))]
        if let name = entity, let e = store.catalog.entity(named: name) {
            let layout = session.decoder.layout(forEntity: e.number)
            if let layout {
                sections = [.table(title: "\(name): \(layout.slots.count) slots, \(layout.byteLength) ZCOLUMNS bytes",
                                   columns: [Column("Slot", alignRight: true), Column("Property", flexible: true), Column("Role")],
                                   rows: layout.slots.map { [Cell(String($0.index)), Cell($0.propertyName), Cell($0.role.rawValue)] }),
                            .fields(title: nil, [("Tombstones", layout.tombstoneAttributes.isEmpty ? "none" : layout.tombstoneAttributes.joined(separator: ", "))])]
                    + layout.notes.map { .note("note: \($0)") }
            } else {
                sections = [.note("\(name): no slot layout (\(session.model.problem ?? "entity not in the model"))")]
            }
            json = [("entities", .array(items.filter { $0.name == name }.map(\.json)))]
        }
        DocumentRenderer.render(Document(kind: "entities", json: json, sections: sections), context: session.context)
    }

    private static func json(_ e: CatalogEntity, superName: String?, counts c: EntityChangeCounts, layout: SlotLayout?,
                             catalog: EntityCatalog) -> JSONValue {
        var slots = JSONValue.null
        if let layout {
            slots = .array(layout.slots.map { s in
                .object([("slot", .int(Int64(s.index))), ("property", .string(s.propertyName)), ("role", .string(s.role.rawValue))])
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
