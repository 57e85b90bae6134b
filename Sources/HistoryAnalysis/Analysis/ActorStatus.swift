import HistoryReading

/// Where an actor stands.
public enum ActorStatus: String, CaseIterable, Sendable {
    /// Has merged everything others wrote.
    case upToDate = "up-to-date"
    /// Has transactions by others still to merge.
    case behind
    /// Declared, but has no recorded position.
    case neverMerged = "never-merged"
    /// Its token names a transaction that is gone: Core Data throws 134301.
    case expired
    /// Its date is older than purged history: Core Data silently skips what was purged.
    case missedChanges = "missed-changes"
    /// Its token is for another store: Core Data throws 134501.
    case foreignToken = "foreign-token"
    /// Its token cannot be unarchived.
    case corruptToken = "corrupt-token"
    /// A date in the defaults under a name no transaction has as its author: a name mismatch?
    case unknownActor = "unknown-actor"
    /// A batch actor: writes history, does not merge.
    case writesOnly = "writes-only"

    /// Whether Core Data fails or loses changes for this actor.
    public var isBroken: Bool {
        switch self {
        case .expired, .missedChanges, .foreignToken, .corruptToken: return true
        default: return false
        }
    }
}

/// One actor's merge state, evaluated against the store.
public struct ActorReport: Sendable {
    public var name: String
    /// An app's actor, or CloudKit's exporter.
    public var kind: ActorKind
    public var status: ActorStatus
    /// Declared with `--actor` (or `--batch-actor`).
    public var isDeclared: Bool
    public var isBatch: Bool
    /// Every recorded position found for the actor; the first is the one evaluated.
    public var records: [MergeRecord]
    /// Transactions this actor authored.
    public var authoredCount: Int
    /// The last transaction the actor has merged (its date's or token's transaction).
    public var lastMerged: Transaction?
    /// The transaction number its token names, when it has one for this store.
    public var tokenNumber: Int64?
    /// The date it recorded, when it uses dates (Cocoa seconds).
    public var positionDate: Double?
    /// An actor that merges (not batch-only) and has a position a purge can break: a token or a date.
    public var hasBreakablePosition: Bool { !isBatch && (tokenNumber != nil || positionDate != nil) }
    /// Its position is a date kept in whole seconds (an XML plist): the app's own may be up to a second later.
    public var positionKeepsWholeSeconds: Bool {
        if case .date(_, let wholeSeconds)? = records.first?.position { return wholeSeconds }
        return false
    }
    /// What it still has to merge.
    public var pending: PendingSummary
    /// Seconds the oldest pending transaction has waited, measured to the report's ``MergeStateReport/lagTo``.
    public var lag: Double?
    /// Seconds from its position (its date, or its token's transaction) to the report's
    /// ``MergeStateReport/lagTo``: by the store's own time, how long before the newest transaction it lies.
    public var positionAge: Double? = nil
    /// Why the status, in a sentence.
    public var explanation: String
    /// What to do about it.
    public var advice: Message
    /// For CloudKit's exporter: the objects it mirrors (what a reset re-uploads); nil when unknown.
    public var mirroredRecordCount: Int? = nil
    /// For an actor that authored nothing: authors with a name like its own, closest
    /// first (its position may be saved under a mistyped name).
    public var similarAuthors: [SimilarAuthor] = []

    /// An author whose name is `distance` edits from the actor's.
    public struct SimilarAuthor: Equatable, Sendable {
        public var name: String
        public var distance: Int
    }

    /// What a reset of CloudKit's mirror uploads again: "every record (20 mirrored records)".
    public var everyRecord: String {
        "every record" + (mirroredRecordCount.map { " (\($0) mirrored record\($0 == 1 ? "" : "s"))" } ?? "")
    }

    /// The position used for cut-offs: its date, or its token transaction's timestamp.
    public var effectiveDate: Double? { positionDate ?? (tokenNumber != nil ? lastMerged?.timestamp : nil) }
}

/// An author that writes history but keeps no merge position: a writer, not an actor.
public struct WriterSummary: Equatable, Sendable {
    /// Nil for transactions without an author.
    public var author: String?
    /// The framework family it belongs to, if any.
    public var family: AuthorFamily? { AuthorFamily.of(author) }
    public var transactions: Int
    public var firstNumber: Int64
    public var lastNumber: Int64
    public var firstTimestamp: Double?
    public var lastTimestamp: Double?
}

/// What a cleaner strategy would do now: its cut-off, how many transactions it deletes, and
/// whom that breaks.
public struct CleanerEffect: Sendable {
    public var cutoff: CleanerCutoff
    /// Transactions the cut-off deletes (0 when it does not purge).
    public var transactionsToDelete: Int
    /// For a cut-off from a whole-second date, what it deletes when a second later (the
    /// cleaner's own may be); nil for the others.
    public var transactionsToDeleteAtMost: Int?
    /// The actors the cut-off would expire or make miss changes (as the purge preview of the
    /// same cut-off says).
    public var breaks: [Consequence]

    public var strategy: CleanerStrategy { cutoff.strategy }
}

/// The merge state of every actor of a store, and what each cleaner would purge now.
public struct MergeStateReport: Sendable {
    public var storeUUID: String
    /// Cocoa seconds the report is evaluated at.
    public var now: Double
    /// What lags are measured to, and that time (Cocoa seconds): the newest transaction's, or `now`.
    public var lagClock: LagClock
    public var lagTo: Double
    /// The store's newest transaction, and its time.
    public var newestTimestamp: Double?
    public var newestNumber: Int64?
    /// Whatever has a merge position or is declared.
    public var actors: [ActorReport]
    /// Authors without a position, most transactions first.
    public var writers: [WriterSummary]
    /// Every cleaner strategy's effect, in the order of `CleanerStrategy.allCases`.
    public var cleaners: [CleanerEffect]
    /// Readers of history whose positions no file shows (the Spotlight delegate).
    public var hiddenReaders: [HiddenReader] = []

    /// CloudKit's exporter, when the store is mirrored.
    public var exporter: ActorReport? { actors.first { $0.kind == .cloudKit } }

    /// How far behind `actor` is, in seconds, when it has something to merge: by the store's own time,
    /// how long before the newest transaction its position lies; by a clock, how long the oldest
    /// transaction it has to merge has waited (``LagClock/behind(_:)`` says which in words).
    public func behind(_ actor: ActorReport) -> Double? {
        lagClock.behind(pending: actor.pending.count, positionAge: actor.positionAge, lag: actor.lag)
    }

    /// The effect of `strategy`.
    public func cleaner(_ strategy: CleanerStrategy) -> CleanerEffect? { cleaners.first { $0.strategy == strategy } }
}
