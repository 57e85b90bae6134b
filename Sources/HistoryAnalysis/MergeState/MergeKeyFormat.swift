/// The defaults key formats apps use to record, per actor, how far it has merged.
public enum MergeKeyFormat: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// `PersistentHistoryTrackingKit.lastToken.<actor>` (PersistentHistoryTrackingKit 1.x/2.x; a date).
    case persistentHistoryTrackingKit
    /// `PersistentHistoryTracker.lastToken.<actor>` (fatbobman's article and demo).
    case persistentHistoryTracker
    /// `lastHistoryTransactionTimestamp-<actor>` (StudApp), `…TimeStamp-<actor>` (SwiftLee; HalloApp's
    /// `…-<dataStore>-<target>`), or the bare `lastHistoryTransactionTimestamp` (SwiftDataChangeMonitor).
    case lastHistoryTransactionTimestamp
    /// `persistent-history-tracking:<storeUUID>-<actor>` (AppwiseCore).
    case appwiseCore
    /// A user-given prefix (`--key-prefix`).
    case customPrefix(String)
    /// Any other key whose value is an archived history token; the key names the actor.
    case tokenKey
    /// Any other key whose value is a JSON token (SwiftData's `DefaultHistoryToken`,
    /// as data or as a string); the key names the actor.
    case jsonToken

    public var description: String {
        switch self {
        case .persistentHistoryTrackingKit: return "PersistentHistoryTrackingKit"
        case .persistentHistoryTracker: return "PersistentHistoryTracker"
        case .lastHistoryTransactionTimestamp: return "lastHistoryTransactionTimestamp"
        case .appwiseCore: return "AppwiseCore"
        case .customPrefix(let p): return "prefix \(p)"
        case .tokenKey: return "token"
        case .jsonToken: return "JSON token"
        }
    }

    private static let fixedPrefixes: [(String, MergeKeyFormat)] = [
        ("persistenthistorytrackingkit.lasttoken.", .persistentHistoryTrackingKit),
        ("persistenthistorytracker.lasttoken.", .persistentHistoryTracker),
        ("lasthistorytransactiontimestamp-", .lastHistoryTransactionTimestamp),
    ]

    /// Keys that are a known format's prefix without its separator and actor: one position for
    /// the whole app, named after the key (`lastHistoryTransactionTimestamp`: SwiftDataChangeMonitor).
    private static let bareKeys: [(String, MergeKeyFormat)] = [
        ("lasthistorytransactiontimestamp", .lastHistoryTransactionTimestamp)
    ]

    /// The known format `customPrefix` qualifies: it starts with that format's prefix and goes on
    /// (`lastHistoryTransactionTimeStamp-mainDataStore-`, one of several stores' keys in one suite).
    public static func qualified(by customPrefix: String) -> MergeKeyFormat? {
        let lower = customPrefix.lowercased()
        return fixedPrefixes.first { lower.hasPrefix($0.0) && lower.count > $0.0.count }?.1
    }

    /// Recognises `key` (prefixes compared case-insensitively) and returns the
    /// format, the actor name, and — for AppwiseCore — the store UUID it is scoped to.
    public static func parse(_ key: String, customPrefixes: [String] = []) -> (
        format: MergeKeyFormat, actor: String, storeUUID: String?
    )? {
        let lower = key.lowercased()
        if let bare = bareKeys.first(where: { $0.0 == lower }) { return (bare.1, key, nil) }
        for prefix in customPrefixes
        where !prefix.isEmpty && lower.hasPrefix(prefix.lowercased()) && key.count > prefix.count {
            return (.customPrefix(prefix), String(key.dropFirst(prefix.count)), nil)
        }
        for (prefix, format) in fixedPrefixes where lower.hasPrefix(prefix) && key.count > prefix.count {
            return (format, String(key.dropFirst(prefix.count)), nil)
        }
        let appwise = "persistent-history-tracking:"
        if lower.hasPrefix(appwise) {
            // <36-character UUID>-<actor>
            let rest = key.dropFirst(appwise.count)
            guard rest.count > 37, rest[rest.index(rest.startIndex, offsetBy: 36)] == "-" else { return nil }
            let uuid = String(rest.prefix(36))
            return (.appwiseCore, String(rest.dropFirst(37)), uuid)
        }
        return nil
    }
}
