import Foundation
import HistoryKit

/// Completion of entity names and object IDs from a store, for the session's
/// Tab and for the shells' completion scripts (which call cdhist back with
/// the words of the command line).
enum ObjectCompletion {
    /// How many recent changes are looked at for the keys of an entity's objects.
    static let recentChanges = 2000

    /// Object IDs starting with `prefix`: `Entity/p` for each entity, then the keys
    /// of its most recently changed objects once an entity is typed.
    static func objects(_ store: HistoryStore, prefix: String) -> [String] {
        let entities = store.catalog.entities.map(\.name)
        guard let slash = prefix.firstIndex(of: "/") else {
            return entities.map { $0 + "/p" }.filter { $0.hasPrefix(prefix) }
        }
        let entity = String(prefix[..<slash])
        guard entities.contains(entity) else { return [] }
        // Only the keys are wanted: no model needed.
        let decoder = store.makeDecoder(model: ModelResolution(model: nil, source: nil, problem: nil))
        var keys: [Int64] = []
        try? store.readChanges(
            HistoryQuery(entities: [entity], limit: recentChanges, order: .descending), decoder: decoder
        ) { try $0.forEach { if !keys.contains($0.entityPK) { keys.append($0.entityPK) } } }
        return keys.map { "\(entity)/p\($0)" }.filter { $0.hasPrefix(prefix) }
    }

    /// The store of a shell's command line (`cdhist COMMAND STORE …`), opened; nil when there is none.
    static func store(inShellWords words: [String]) -> HistoryStore? {
        guard words.count > 2 else { return nil }
        let word = words[2].trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        let path = word.hasPrefix("~/") ? NSHomeDirectory() + word.dropFirst() : word
        guard !path.hasPrefix("-"), FileManager.default.fileExists(atPath: path) || PackedReference.resolve(path) != nil
        else { return nil }
        return try? HistoryStore.open(path)
    }

    /// The shells' completion of an object ID.
    @Sendable static func shellObjects(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        store(inShellWords: words).map { objects($0, prefix: prefix) } ?? []
    }

    /// The shells' completion of an entity name.
    @Sendable static func shellEntities(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        (store(inShellWords: words)?.catalog.entities.map(\.name) ?? []).filter { $0.hasPrefix(prefix) }
    }
}
