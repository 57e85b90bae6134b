import Foundation
import HistoryAnalysis
import HistoryReading

/// The tokens a token file, a plist or a `STOREUUID:N` literal holds, each judged against a store
/// as `actors` judges a position: `cdhist token`'s answer. A plist is read as shared defaults are
/// read for `actors` (every key's token, damaged ones and SwiftData's JSON included), and the
/// judging is the merge-state analysis itself, so the two commands cannot disagree.
public struct TokenReport: Sendable {
    /// One token the source holds.
    public struct Entry: Sendable {
        /// The plist key (or key path) holding it; nil for a token file or a literal.
        public var key: String?
        /// Its position: a token, or why the value under the key cannot be read as one.
        public var record: MergeRecord
        /// Its actor's report in the merge-state analysis of the store; nil without a store.
        public var judged: ActorReport?

        /// The token, when it can be read.
        public var token: HistoryToken? {
            if case .token(let token) = record.position { return token }
            return nil
        }

        /// Whether Core Data fails or loses changes with it: damaged, foreign, expired or beyond
        /// the newest transaction (without a store, only a damaged one is known).
        public var isBroken: Bool {
            if let judged { return judged.status.isBroken }
            if case .unreadable = record.position { return true }
            return false
        }
    }

    /// The file or literal, as given.
    public var source: String
    public var entries: [Entry]
    /// Keys holding another store's position (they name its UUID), passed over as `actors` does.
    public var otherStoreKeys: [String]
    /// The prefix the keys were found to share before their actors' names, as `actors` finds it.
    public var inferredKeyPrefix: String? = nil

    /// Whether any token is broken (``Entry/isBroken``).
    public var anyBroken: Bool { entries.contains(where: \.isBroken) }

    /// Reads every token `source` holds and, with `store`, judges each against it at `now` (Cocoa seconds).
    public static func make(source: String, store: HistoryStore?, now: Double) throws -> TokenReport {
        var report = try read(source, storeUUID: store?.storeUUID)
        if let store {
            // Keys sharing a prefix before authors' names are those authors' tokens, as actors reads them.
            if let resolved = try KeyPrefixInference.resolve(report.entries.map(\.record), isAuthor: store.hasAuthor) {
                for i in report.entries.indices { report.entries[i].record = resolved.records[i] }
                report.inferredKeyPrefix = resolved.prefix
            }
            let analysis = try MergeStateAnalyzer(
                store: store, declared: [], batch: [], records: report.entries.map(\.record), now: now
            ).report()
            for i in report.entries.indices {
                report.entries[i].judged = analysis.actors.first {
                    $0.kind == .app && $0.name == report.entries[i].record.actor
                }
            }
        }
        return report
    }

    /// The tokens `value` holds: one of a token file (an archive, SwiftData's JSON) or a literal,
    /// or each key's of a plist of keys; a damaged one is an entry that says why.
    static func read(_ value: String, storeUUID: String?) throws -> TokenReport {
        let spec = TokenSpec(value)
        let bytes: [UInt8]
        switch try TokenSource.read(value) {
        case .literal(let token):
            let record = MergeRecord(
                actor: spec.actor, position: .token(token), source: "literal \(value)", keyFormat: nil)
            return TokenReport(source: value, entries: [Entry(key: nil, record: record)], otherStoreKeys: [])
        case .file(_, let read): bytes = read
        }
        guard !JSONText.looksLikeJSON(bytes), let plist = try? PropertyList.decode(bytes).value,
            plist["$objects"] == nil,
            plist.dictionaryValue != nil
        else {
            // One token, read as `actors --token` reads it: a damaged one is an entry saying why.
            let record = try TokenFileReader.read(bytes: bytes, path: value, actor: spec.actor, storeUUID: storeUUID)
            return TokenReport(source: value, entries: [Entry(key: nil, record: record)], otherStoreKeys: [])
        }
        let state = try DefaultsReader.read(bytes: bytes, path: value, storeUUID: storeUUID)
        let held = state.records.filter { if case .date = $0.position { return false } else { return true } }
        guard !held.isEmpty else { throw TokenError.defaultsNotToken(source: value, positions: state.records.count) }
        return TokenReport(
            source: value, entries: held.map { Entry(key: $0.key ?? $0.actor, record: $0) },
            otherStoreKeys: state.otherStoreKeys)
    }
}
