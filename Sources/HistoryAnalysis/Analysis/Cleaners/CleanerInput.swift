import Foundation
import HistoryReading

/// What a cleaner's rule decides from: the app's actors with their merge dates, and when.
public struct CleanerInput: Sendable {
    /// One of the app's actors (an author that merges, or one that only writes).
    public struct Actor: Equatable, Sendable {
        public var name: String
        /// Its merge position as a date (Cocoa seconds): its date, or its token's transaction's; nil: none.
        public var date: Double?
        /// Declared as an author that only writes (`batchAuthors` in PersistentHistoryTrackingKit).
        public var isBatch: Bool
        /// Its date was kept in whole seconds (an XML plist): the app's own was up to a second later.
        public var wholeSeconds: Bool

        public init(name: String, date: Double?, isBatch: Bool = false, wholeSeconds: Bool = false) {
            self.name = name
            self.date = date
            self.isBatch = isBatch
            self.wholeSeconds = wholeSeconds
        }
    }

    public var actors: [Actor]
    /// When the cleaner runs (Cocoa seconds).
    public var now: Double
    public var settings: CleanerSettings

    public init(actors: [Actor], now: Double, settings: CleanerSettings = CleanerSettings()) {
        self.actors = actors
        self.now = now
        self.settings = settings
    }

    /// Seven days, the fixed fallback age of several cleaners.
    static let week: Double = 7 * 86400

    /// now − 7 days.
    var weekAgo: Double { now - Self.week }

    /// now − the retention (PersistentHistoryTrackingKit's `maximumDuration`, AppwiseCore's `timeToLive`).
    var retentionAgo: Double { now - settings.retention }

    /// The actors whose dates a rule takes: all of them, or without the batch actors for a
    /// library that leaves its `batchAuthors` out of the cut-off.
    func counted(excludingBatch: Bool) -> [Actor] {
        excludingBatch ? actors.filter { !$0.isBatch } : actors
    }

    /// The earliest dated actor of `actors`.
    static func earliest(_ actors: [Actor]) -> (name: String, date: Double)? {
        actors.compactMap { a in a.date.map { (name: a.name, date: $0) } }.min { $0.date < $1.date }
    }

    /// The names of the actors of `actors` without a date, for reasons.
    static func undated(_ actors: [Actor]) -> String {
        actors.filter { $0.date == nil }.map(\.name).joined(separator: ", ")
    }
}

/// What the cleaners that can be configured are configured with, and where they run.
public struct CleanerSettings: Equatable, Sendable {
    /// Seven days (604,800 s): the libraries' default and Apple's documentation's.
    public static let defaultRetention: Double = 7 * 86400

    /// How long history is kept (seconds) by the cleaners that have a setting for it, and by
    /// the apps that copied Apple's documentation and changed its seven days.
    public var retention: Double

    /// The device's time zone, in which a cleaner counting calendar days counts them
    /// (`Calendar.current` in the app). The caller says which: a front end passes the
    /// user's, so that what is computed here does not depend on where it runs.
    public var timeZone: TimeZone

    public init(retention: Double = defaultRetention, timeZone: TimeZone = CleanerSettings.utc) {
        self.retention = retention
        self.timeZone = timeZone
    }

    /// UTC, the time zone when none is given.
    public static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? TimeZone.current

    /// The retention in words: `7 days`, `36 hours`, `90 minutes`, `45 seconds`.
    var retentionText: String { span(retention, exact: true) }

    /// The retention in whole days, when it is some (`7d`, `2w`); nil for `36h`.
    var retentionDays: Int? {
        let days = retention / 86400
        return days >= 1 && days == days.rounded() && days <= Double(Int32.max) ? Int(days) : nil
    }
}

/// A cleaner's decision: where it cuts and why.
struct CleanerDecision {
    /// Delete transactions with `ZTIMESTAMP <` this; nil: no purge, unless `allDates`.
    var cutoff: Double?
    var reason: String
    /// The actor whose date sets the cut-off.
    var heldBackBy: String?
    /// It deletes at every date, with no cut-off: all that its author filter selects.
    var allDates = false

    static func none(_ reason: String) -> CleanerDecision { CleanerDecision(cutoff: nil, reason: reason) }

    /// No cut-off: every transaction its author filter selects goes, whatever its date.
    static func everyDate(_ reason: String) -> CleanerDecision {
        CleanerDecision(cutoff: nil, reason: reason, allDates: true)
    }
}

/// One popular cleaner's rule, as its own code computes it: each in a file of its own that
/// cites the library, version and source file it follows.
protocol CleanerRule {
    static var title: String { get }
    /// The repository, version and file the rule was read in.
    static var source: String { get }
    /// Whether the delete is narrowed to the actors' authors (OR-ed), else everything goes.
    static var narrowsToActors: Bool { get }
    /// The authors (OR-ed) the delete is narrowed to whoever the actors are: a cleaner that
    /// deletes what it wrote itself; nil: none.
    static var deletesOnlyBy: [String]? { get }
    /// Whether it sets every actor's key to nil after purging.
    static var resetsKeys: Bool { get }
    /// What the library does besides the cut-off that a preview should mention.
    static var notes: [String] { get }
    static func decide(_ input: CleanerInput) -> CleanerDecision
}

extension CleanerRule {
    static var deletesOnlyBy: [String]? { nil }
    static var resetsKeys: Bool { false }
    static var notes: [String] { [] }
}
