import HistoryReading

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

/// Who keeps a merge position.
public enum ActorKind: String, Equatable, Sendable {
    /// An app, extension or other target, in shared defaults or a token file.
    case app
    /// CloudKit mirroring's exporter, in the store itself: it exports what the
    /// app's authors write and skips what CloudKit's own authors write.
    case cloudKit = "cloudkit"
}

/// One actor's recorded position and where it was found.
public struct MergeRecord: Equatable, Sendable {
    /// The actor (author) name.
    public var actor: String
    public var position: MergePosition
    /// Where it was found: `<plist> [<key>]`, a token file's path, or a table of the store.
    public var source: String
    /// The key format, for defaults entries (nil for token files).
    public var keyFormat: MergeKeyFormat?
    public var kind: ActorKind
    /// The file it was read from (a defaults plist or a token file); nil for a literal or the store.
    public var file: String?
    /// The top-level key of the plist `file` holding it; nil for a token file or a nested value.
    public var key: String?

    public init(
        actor: String, position: MergePosition, source: String, keyFormat: MergeKeyFormat?, kind: ActorKind = .app
    ) {
        self.actor = actor
        self.position = position
        self.source = source
        self.keyFormat = keyFormat
        self.kind = kind
    }
}
