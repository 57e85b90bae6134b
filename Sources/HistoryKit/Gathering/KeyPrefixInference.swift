import HistoryAnalysis

/// A prefix an app's defaults keys share before its actors' names (`historyToken.<actor>`, as
/// SwiftData apps keep their targets' tokens), inferred when no `--key-prefix` is given: keys
/// holding a token under no known format, whose names, after a separator, are authors of the store.
/// Each such key is then its author's position, as `--key-prefix` would make it.
enum KeyPrefixInference {
    /// What ends a prefix: the character before the actor's name.
    private static let separators: Set<Character> = [".", "-", "_", ":", "/"]

    /// The prefix most keys share before an author's name; nil when no key has one, or when a key
    /// is itself an author's name (the app names its positions by author, no prefix).
    private static func infer(_ records: [MergeRecord], isAuthor: (String) throws -> Bool) throws -> String? {
        let keys = records.filter(isCandidate).map(\.actor)
        guard !keys.isEmpty, try !keys.contains(where: isAuthor) else { return nil }
        var votes: [String: Int] = [:]
        for key in keys {
            for i in key.indices where separators.contains(key[i]) && key.index(after: i) < key.endIndex {
                let prefix = String(key[...i])
                let rest = String(key[key.index(after: i)...])
                if try isAuthor(rest) { votes[prefix, default: 0] += 1 }
            }
        }
        // The most keys; between as many, the longest prefix (the actor's name is then the shortest).
        return votes.max { ($0.value, $0.key.count) < ($1.value, $1.key.count) }?.key
    }

    /// The prefix inferred from `records` and the records read with it; nil when none is inferred.
    static func resolve(_ records: [MergeRecord], isAuthor: (String) throws -> Bool) throws -> (
        prefix: String, records: [MergeRecord]
    )? {
        try infer(records, isAuthor: isAuthor).map { ($0, apply($0, to: records)) }
    }

    /// `records` with each candidate key under `prefix` made the position of the actor it names.
    private static func apply(_ prefix: String, to records: [MergeRecord]) -> [MergeRecord] {
        records.map { record in
            guard isCandidate(record), record.actor.hasPrefix(prefix), record.actor.count > prefix.count else {
                return record
            }
            var renamed = record
            renamed.actor = String(record.actor.dropFirst(prefix.count))
            renamed.keyFormat = .customPrefix(prefix)
            return renamed
        }
    }

    /// A top-level key holding a token under no known format: the key names the actor.
    private static func isCandidate(_ record: MergeRecord) -> Bool {
        (record.keyFormat == .tokenKey || record.keyFormat == .jsonToken) && record.key != nil
            && record.key == record.actor
    }
}
