import HistoryReading

/// A file (or the store itself) merge state was read from, and what it held.
public struct MergeSource: Equatable, Sendable {
    public var path: String
    /// What it is: `defaults (binary)`, `token file`, `token literal`, `CloudKit mirroring, …`.
    public var kind: String
    /// Positions read from it.
    public var positions: Int
    /// Keys passed over as no merge position of this store's.
    public var ignoredKeys: Int
    /// Keys that hold the positions of other stores.
    public var otherStoreKeys: [String]
    /// The prefix its keys were found to share before their actors' names (none was given).
    public var inferredKeyPrefix: String? = nil
}

/// Something passed over while merge state was read, and why.
public struct MergeStateNote: Sendable {
    public var text: Message
    /// Said only when asked for (values that are no merge position, CloudKit's unreadable
    /// parts); otherwise always (a token file that holds no token).
    public var onRequest: Bool
}
