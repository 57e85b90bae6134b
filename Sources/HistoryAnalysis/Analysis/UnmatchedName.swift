import HistoryReading

/// A name a query filters on that no transaction has (`--author Widget` where the author is
/// `widget`), with the names like it that transactions do have.
public struct UnmatchedName: Equatable, Sendable {
    public var field: TransactionField
    public var value: String
    /// Names of that field in the store, closest first.
    public var similar: [String]
}

extension UnmatchedName {
    /// The names `query` filters on that no transaction of `store` has. Reads each field the
    /// query names once: call it when a listing found nothing, to say why.
    public static func all(in store: HistoryStore, for query: HistoryQuery) throws -> [UnmatchedName] {
        let filters: [(TransactionField, [HistoryQuery.NameFilter])] = [
            (.author, query.authors), (.contextName, query.contextNames), (.bundleID, query.bundleIDs),
            (.processID, query.processIDs),
        ]
        var unmatched: [UnmatchedName] = []
        for (field, values) in filters {
            let wanted = values.compactMap { filter -> String? in
                if case .value(let name) = filter { return name }
                return nil
            }
            guard !wanted.isEmpty else { continue }
            let present = try store.fieldSummaries(field, countingChanges: false).compactMap(\.value)
            let known = Set(present)
            for name in wanted where !known.contains(name) {
                unmatched.append(
                    UnmatchedName(
                        field: field, value: name, similar: NameSuggestion.closest(to: name, among: present).map(\.name)
                    ))
            }
        }
        return unmatched
    }
}
