/// How far an actor has merged, as recorded.
public enum MergePosition: Equatable, Sendable {
    /// A last-merged date (Cocoa seconds). `wholeSeconds` when the plist kept
    /// whole seconds only (XML), so comparisons allow ±1 s.
    case date(Double, wholeSeconds: Bool)
    /// An archived history token.
    case token(HistoryToken)
    /// A value that should be a position but cannot be read (a corrupt token archive, a wrong type).
    case unreadable(String)
}

/// One actor's recorded position and where it was found.
public struct MergeRecord: Equatable, Sendable {
    /// The actor (author) name.
    public var actor: String
    public var position: MergePosition
    /// Where it was found: `<plist> [<key>]` or a token file's path.
    public var source: String
    /// The key format, for defaults entries (nil for token files).
    public var keyFormat: MergeKeyFormat?

    public init(actor: String, position: MergePosition, source: String, keyFormat: MergeKeyFormat?) {
        self.actor = actor
        self.position = position
        self.source = source
        self.keyFormat = keyFormat
    }
}
