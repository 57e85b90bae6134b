import HistoryReading

/// A reader of the store's history whose position is kept where cdhist cannot read it: an actor
/// that `actors` cannot show, and that a purge can break without any file saying so.
public struct HiddenReader: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// `NSCoreDataCoreSpotlightDelegate`, keeping its history token in the Spotlight index.
        case spotlight
    }

    public var kind: Kind
    /// Who reads, for people.
    public var name: String
    /// What shows it is there: the properties the model indexes in Spotlight (`Entity.property`).
    public var evidence: [String]
    /// Where it keeps its position, and what a purge past it does.
    public var explanation: String
    /// What a purge of history it has not read does to it.
    public var purgeEffect: String

    /// The Spotlight delegate, when `model` marks any property "Index in Spotlight".
    public static func spotlight(in model: ManagedObjectModel) -> HiddenReader? {
        let indexed = model.entities.sorted { $0.name < $1.name }.flatMap { e in
            e.properties.filter { $0.isIndexedBySpotlight && !$0.isTransient }.map { "\(e.name).\($0.name)" }
        }
        guard !indexed.isEmpty else { return nil }
        let named =
            indexed.count <= 3
            ? indexed.joined(separator: ", ")
            : indexed.prefix(3).joined(separator: ", ") + " and \(indexed.count - 3) more"
        return HiddenReader(
            kind: .spotlight, name: "Spotlight (NSCoreDataCoreSpotlightDelegate)", evidence: indexed,
            explanation:
                """
                the model indexes \(named) in Spotlight: an app indexing them with NSCoreDataCoreSpotlightDelegate \
                reads history and keeps \
                its position in the Spotlight index, out of reach of any file
                """,
            purgeEffect: "its token expires and it re-indexes every object")
    }
}

extension HiddenReader {
    /// The hidden readers of `store` the model at `modelPath` shows, or the store's own (its model cache).
    public static func all(in store: HistoryStore, modelPath: String? = nil) -> [HiddenReader] {
        guard let model = try? store.resolveModel(userModelPath: modelPath).model else { return [] }
        return [HiddenReader.spotlight(in: model)].compactMap { $0 }
    }
}
