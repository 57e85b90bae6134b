/// The popular history cleaners whose purge cut-off cdhist computes, each as its own code
/// computes it (one file per cleaner, citing the library, version and file it follows).
public enum CleanerStrategy: String, CaseIterable, Sendable {
    case apple
    case apple604800 = "apple-604800"
    case phtk100 = "phtk-1.0.0"
    case phtk100Manual = "phtk-1.0.0-manual"
    case phtk104 = "phtk-1.0.4"
    case phtk2 = "phtk-2"
    case phtk2Manual = "phtk-2-manual"
    case fatbobman
    case fatbobmanDemo = "fatbobman-demo"
    case swiftlee
    case studapp
    case appwise
    case swiftsync

    private var rule: CleanerRule.Type {
        switch self {
        case .apple: return AppleSampleCleaner.self
        case .apple604800: return AppleEarlierListingCleaner.self
        case .phtk100: return PHTK100Cleaner.self
        case .phtk100Manual: return PHTK100ManualCleaner.self
        case .phtk104: return PHTK104Cleaner.self
        case .phtk2: return PHTK2Cleaner.self
        case .phtk2Manual: return PHTK2ManualCleaner.self
        case .fatbobman: return FatbobmanArticleCleaner.self
        case .fatbobmanDemo: return FatbobmanDemoCleaner.self
        case .swiftlee: return SwiftLeeCleaner.self
        case .studapp: return StudAppCleaner.self
        case .appwise: return AppwiseCleaner.self
        case .swiftsync: return SwiftSyncCleaner.self
        }
    }

    /// What the strategy is, for people.
    public var title: String { rule.title }

    /// The library, version and source file the rule follows.
    public var source: String { rule.source }

    /// Whether the retention sets its duration (the libraries' `maximumDuration` and `timeToLive`,
    /// and the seven days of Apple's listings that apps change).
    public var usesRetention: Bool { [.apple, .apple604800, .phtk104, .appwise].contains(self) }

    /// What the strategy would purge now, from `input`. A library that narrows its delete
    /// to its actors' authors deletes nothing when it has none; one that deletes what its own
    /// author wrote narrows it to that author.
    public func cutoff(_ input: CleanerInput) -> CleanerCutoff {
        let rule = self.rule
        var decision = rule.decide(input)
        if rule.narrowsToActors && input.actors.isEmpty {
            decision = .none("no actor known: it deletes only what its actors wrote, so nothing")
        }
        let wholeSeconds =
            decision.heldBackBy.flatMap { name in input.actors.first { $0.name == name }?.wholeSeconds } ?? false
        let purges = decision.cutoff != nil || decision.allDates
        return CleanerCutoff(
            strategy: self, cutoff: decision.cutoff, reason: decision.reason, heldBackBy: decision.heldBackBy,
            authorFilter: rule.narrowsToActors ? input.actors.map(\.name) : rule.deletesOnlyBy,
            resetsKeysAfterPurge: rule.resetsKeys && purges, notes: rule.notes,
            wholeSecondDate: wholeSeconds && decision.cutoff != nil, allDates: decision.allDates)
    }
}

/// What a cleaner strategy would purge now.
public struct CleanerCutoff: Equatable, Sendable {
    public var strategy: CleanerStrategy
    /// Delete transactions with `ZTIMESTAMP <` this (Cocoa seconds); nil: no purge, unless
    /// ``allDates``.
    public var cutoff: Double?
    /// Why, in words.
    public var reason: String
    /// The actor whose date sets the cut-off (holds purging back).
    public var heldBackBy: String?
    /// The delete is narrowed to these authors (OR-ed); nil: every author.
    public var authorFilter: [String]?
    /// The cleaner sets every actor's key to nil after purging, so each re-reads what is left.
    public var resetsKeysAfterPurge: Bool
    /// What the library does besides the cut-off (when it cleans at all).
    public var notes: [String]
    /// The cut-off is a date kept in whole seconds (an XML plist): the cleaner's own is up to a
    /// second later, and what falls in that second may go too.
    public var wholeSecondDate: Bool = false
    /// The cleaner has no cut-off date: it deletes every transaction its ``authorFilter``
    /// selects, whatever its date (``cutoff`` is nil).
    public var allDates: Bool = false

    /// Whether the cleaner deletes anything now: before its cut-off, or at every date.
    public var purges: Bool { cutoff != nil || allDates }
}
