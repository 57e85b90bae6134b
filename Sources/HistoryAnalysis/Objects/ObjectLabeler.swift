import Foundation
import GRDB
import HistoryReading

/// Short human labels for objects ("Note/p67" reads as 'Shopping list'):
/// the value of a name- or title-like string attribute in the object's current
/// row, or in a delete's tombstone when the row is gone. Which attribute is
/// chosen per entity, or given (`Note=subject`).
public final class ObjectLabeler {
    private let store: HistoryStore
    private let model: ManagedObjectModel?
    private let given: [String: String]
    /// The attribute and column used per entity number (nil: none).
    private var attributes: [Int64: (name: String, table: String, column: String)?] = [:]
    /// Labels read, by entity number and key (cleared past ``cacheLimit``, so memory stays bounded).
    private var cache: [Int64: [Int64: String?]] = [:]
    private var cached = 0
    private static let cacheLimit = 50_000
    /// The columns of the model's properties, computed on first use.
    private lazy var columnNames: ColumnNames? = model.map { [catalog = store.catalog] in
        ColumnNames(model: $0) { catalog.entity(named: $0)?.number }
    }

    /// Attribute names taken in this order when an entity has one of them (case ignored),
    /// before any other string attribute whose name has "title" or "name" in it.
    public static let preferredNames = [
        "title", "name", "displayname", "label", "subject", "headline", "caption", "filename",
    ]

    /// The same store as it was earlier (a backup taken before a deletion): labels of objects
    /// whose rows are gone now come from their rows there.
    private let earlier: ObjectLabeler?

    /// Labels for `store`'s objects; `given` maps entity names to the attribute
    /// to use (for the entity and its subentities); `earlier`, a snapshot of the same store from
    /// before, names objects deleted since. Throws when a given entity or attribute does not exist.
    public init(
        store: HistoryStore, model: ManagedObjectModel?, given: [String: String] = [:], earlier: HistoryStore? = nil
    ) throws {
        self.store = store
        self.model = model
        self.given = given
        self.earlier = earlier.map { ObjectLabeler(snapshot: $0, model: model, given: given) }
        try Self.check(given, store: store, model: model)
    }

    /// A labeler for an earlier snapshot, unchecked: a given entity it does not have labels nothing there.
    private init(snapshot: HistoryStore, model: ManagedObjectModel?, given: [String: String]) {
        store = snapshot
        self.model = model
        self.given = given
        earlier = nil
    }

    private static func check(_ given: [String: String], store: HistoryStore, model: ManagedObjectModel?) throws {
        for (entity, attribute) in given {
            guard store.catalog.entity(named: entity) != nil else {
                throw StoreQueryError(
                    path: store.path, .unknownEntity(name: entity, known: store.catalog.entities.map(\.name)))
            }
            guard let model else { throw LabelError.noModel(entity: entity) }
            guard model.allProperties(of: entity).contains(where: { $0.name == attribute && $0.attribute != nil })
            else {
                let known = model.allProperties(of: entity).filter { $0.attribute != nil }.map(\.name)
                throw LabelError.noAttribute(entity: entity, attribute: attribute, known: known)
            }
        }
    }

    /// The label of the changed object: a delete's tombstone value, else its row's, else its
    /// row's in the earlier snapshot.
    public func label(_ change: Change) throws -> String? {
        if let column = try labelColumn(change.entityNumber) {
            if change.changeType == .delete, let entry = change.tombstone.first(where: { $0.name == column.name }),
                case .text(let text) = entry.value
            {
                return Self.clean(text)
            }
            if let text = try read(column, entity: change.entityNumber, change.entityPK) { return text }
        }
        return try earlierLabel(entity: change.entityName, primaryKey: change.entityPK)
    }

    /// The label the object had in the earlier snapshot (its entity found there by name).
    public func earlierLabel(entity name: String?, primaryKey pk: Int64) throws -> String? {
        guard let earlier, let name, let number = earlier.store.catalog.entity(named: name)?.number else { return nil }
        return try earlier.label(entityNumber: number, primaryKey: pk)
    }

    /// The label of the object with key `pk` of entity `number`, from its current row.
    public func label(entityNumber number: Int64, primaryKey pk: Int64) throws -> String? {
        guard let column = try labelColumn(number) else { return nil }
        return try read(column, entity: number, pk)
    }

    private func labelColumn(_ number: Int64) throws -> (name: String, table: String, column: String)? {
        if let known = attributes[number] { return known }
        var found: (name: String, table: String, column: String)?
        if let entity = store.catalog.entity(number: number), let table = store.catalog.rootTableName(of: number),
            let name = chooseAttribute(entity.name)
        {
            let columns = try store.read { try HistoryStore.columns(of: table, $0) }
            // The entity declaring it names the column (numbered when siblings in the table declare the name too).
            let declaring = model?.inheritanceChain(of: entity.name).last { $0.property(named: name) != nil }?.name
            let named = declaring.flatMap { columnNames?.column(entity: $0, property: name) }
            // The model's column when the table has it, else `Z` + the name (a store the model does not quite fit).
            // Z_ENT tells the table's entities apart: a table without it is not Core Data's, and gives no label.
            if columns.contains("Z_ENT"),
                let column = [named, ColumnNames.base(name)].compactMap({ $0 }).first(where: columns.contains)
            {
                found = (name, table, column)
            }
        }
        attributes[number] = .some(found)
        return found
    }

    /// The given attribute for the entity or its nearest superentity, else the best-named string attribute.
    private func chooseAttribute(_ entity: String) -> String? {
        guard let model else { return nil }
        for level in model.inheritanceChain(of: entity).reversed() {
            if let name = given[level.name] { return name }
        }
        let strings = model.allProperties(of: entity).filter { $0.attribute?.type == .string && !$0.isTransient }.map(
            \.name)
        for preferred in Self.preferredNames {
            if let name = strings.first(where: { $0.lowercased() == preferred }) { return name }
        }
        return strings.first { $0.lowercased().contains("title") || $0.lowercased().contains("name") }
    }

    /// The label column's value in the row of entity `number` with key `pk` (a row of another
    /// entity of the same table under that key is not this object).
    private func read(_ column: (name: String, table: String, column: String), entity number: Int64, _ pk: Int64) throws
        -> String?
    {
        if let hit = cache[number]?[pk] { return hit }
        let value = try store.read { db -> String? in
            let sql = "SELECT \"\(column.column)\" FROM \"\(column.table)\" WHERE Z_PK = ? AND Z_ENT = ?"
            let cursor = try RawCursor(db.cachedStatement(sql: sql), arguments: [pk, number])
            defer { cursor.finish() }
            guard try cursor.next() else { return nil }
            // Text as it is, a number as digits; a blob is no label.
            switch cursor.value(0) {
            case .text(let text)?: return text
            case .integer(let n)?: return String(n)
            case .real(let d)?: return String(d)
            case .blob?, nil: return nil
            }
        }.map(Self.clean)
        if cached >= Self.cacheLimit {
            cache = [:]
            cached = 0
        }
        cache[number, default: [:]][pk] = .some(value)
        cached += 1
        return value
    }

    /// One line, at most 60 characters.
    private static func clean(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.count > 60 ? String(trimmed.prefix(59)) + "…" : trimmed
    }
}

/// A label attribute that cannot be used.
public enum LabelError: MessageError, Equatable, Sendable {
    case noModel(entity: String)
    case noAttribute(entity: String, attribute: String, known: [String])

    public var message: Message {
        switch self {
        case .noModel(let entity):
            return "labels for \(entity) need a model (the store has none cached; give one with \(Control.model))"
        case .noAttribute(let entity, let attribute, let known):
            return "\(entity) has no attribute '\(attribute)'"
                + (known.isEmpty
                    ? "" : " (attributes: \(known.prefix(12).joined(separator: ", "))\(known.count > 12 ? ", …" : ""))")
        }
    }
}
