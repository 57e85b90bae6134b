/// The purge cut-offs popular history cleaners compute (merge-state spec, section 5).
public enum CleanerStrategy: String, CaseIterable, Sendable {
    /// Apple's documentation sample: now − 7 days, every author.
    case apple
    /// PersistentHistoryTrackingKit 1.0.0–1.0.3.
    case phtk100 = "phtk-1.0.0"
    /// PersistentHistoryTrackingKit 1.0.4–1.3.x.
    case phtk104 = "phtk-1.0.4"
    /// PersistentHistoryTrackingKit 2.x (automatic cleaning).
    case phtk2 = "phtk-2"
    /// fatbobman's article and demo (then resets every key).
    case fatbobman
    /// StudApp and SwiftLee.
    case swiftlee
    /// AppwiseCore.
    case appwise

    /// What the strategy is, for people.
    public var title: String {
        switch self {
        case .apple: return "Apple documentation sample"
        case .phtk100: return "PersistentHistoryTrackingKit 1.0.0–1.0.3"
        case .phtk104: return "PersistentHistoryTrackingKit 1.0.4–1.3.x"
        case .phtk2: return "PersistentHistoryTrackingKit 2.x"
        case .fatbobman: return "fatbobman article / demo"
        case .swiftlee: return "StudApp / SwiftLee"
        case .appwise: return "AppwiseCore"
        }
    }

    /// Seven days, the fallback age several cleaners use.
    public static let week: Double = 7 * 86400

    /// Computes the cut-off from each non-batch actor's last-merged date
    /// (nil for an actor without one) at time `now` (Cocoa seconds).
    /// `allActors` are the author names the delete is narrowed to, for the
    /// strategies that narrow it.
    public func cutoff(actorDates: [(actor: String, date: Double?)], allActors: [String], now: Double) -> CleanerCutoff {
        let weekAgo = now - Self.week
        let dated = actorDates.compactMap { a in a.date.map { (actor: a.actor, date: $0) } }
        let earliest = dated.min { $0.date < $1.date }
        let missing = actorDates.filter { $0.date == nil }.map(\.actor)
        let authors = allActors.isEmpty ? nil : allActors
        func result(_ date: Double?, _ reason: String, heldBackBy: String? = nil, filter: [String]? = nil) -> CleanerCutoff {
            CleanerCutoff(strategy: self, cutoff: date, reason: reason, heldBackBy: heldBackBy, authorFilter: filter,
                          resetsKeysAfterPurge: self == .fatbobman && date != nil)
        }
        let missingText = missing.isEmpty ? "" : missing.joined(separator: ", ")
        switch self {
        case .apple:
            return result(weekAgo, "now − 7 days")
        case .phtk100, .fatbobman:
            guard let earliest else { return result(nil, "no actor has a date: no purge", filter: authors) }
            if missing.isEmpty {
                return result(earliest.date, "every actor has a date: the earliest", heldBackBy: earliest.actor, filter: authors)
            }
            if earliest.date < weekAgo {
                return result(weekAgo, "\(missingText) without a date and the earliest date is older than 7 days: now − 7 days", filter: authors)
            }
            return result(nil, "\(missingText) without a date and the earliest date is within 7 days: no purge", filter: authors)
        case .phtk104:
            guard let earliest else { return result(weekAgo, "no actor has a date: now − 7 days", filter: authors) }
            return result(earliest.date, "the earliest date among actors that have one", heldBackBy: earliest.actor, filter: authors)
        case .phtk2:
            guard missing.isEmpty else { return result(nil, "\(missingText) without a date: no purge", filter: authors) }
            guard let earliest else { return result(nil, "no actor of the app: no purge", filter: authors) }
            return result(earliest.date, "every actor has a date: the earliest", heldBackBy: earliest.actor, filter: authors)
        case .swiftlee:
            guard missing.isEmpty else { return result(nil, "\(missingText) without a date: no purge") }
            guard let earliest else { return result(nil, "no actor of the app: no purge") }
            return result(earliest.date, "the earliest date", heldBackBy: earliest.actor)
        case .appwise:
            guard missing.isEmpty, let earliest else {
                return result(weekAgo, missing.isEmpty ? "no actor of the app: now − 7 days" : "\(missingText) without a date: now − 7 days")
            }
            if earliest.date >= weekAgo {
                return result(earliest.date, "the later of the earliest date and now − 7 days: the earliest date", heldBackBy: earliest.actor)
            }
            return result(weekAgo, "the later of the earliest date and now − 7 days: now − 7 days")
        }
    }
}

/// What a cleaner strategy would purge now.
public struct CleanerCutoff: Equatable, Sendable {
    public var strategy: CleanerStrategy
    /// Delete transactions with `ZTIMESTAMP <` this (Cocoa seconds); nil: no purge.
    public var cutoff: Double?
    /// Why, in words.
    public var reason: String
    /// The actor whose date sets the cut-off (holds purging back).
    public var heldBackBy: String?
    /// The delete is narrowed to these authors (OR-ed); nil: every author.
    public var authorFilter: [String]?
    /// The cleaner sets every actor's key to nil after purging (fatbobman).
    public var resetsKeysAfterPurge: Bool
}
