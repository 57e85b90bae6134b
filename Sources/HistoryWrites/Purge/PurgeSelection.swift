import HistoryAnalysis
import HistoryReading

/// Where a purge cuts: before a position the user gave, or where a cleaner's strategy cuts.
public enum PurgeCutoff: Sendable, Equatable {
    /// Transactions before `bound` (a date, a transaction number, a token's position); `rule`
    /// says it as the user gave it.
    case before(HistoryQuery.Bound, rule: String)
    /// The cut-off a cleaner computes from the actors' positions.
    case strategy(CleanerStrategy)

    /// Whether the cut-off is computed from the actors' positions (so the merge state is
    /// analysed even when no source gives one).
    public var needsActors: Bool {
        if case .strategy = self { return true }
        return false
    }
}

/// The transactions a purge selects: everything before a bound, as
/// `deleteHistory(before:)` does, or before a cleaner's cut-off computed from
/// the merge state; narrowed by a query's filters.
public struct PurgeSelection: Sendable {
    /// Where the cut falls.
    public enum Cutoff: Sendable {
        /// Transactions before this bound go.
        case bound(HistoryQuery.Bound)
        /// The strategy would not purge now, for this reason.
        case none(String)
        /// No date bound: what the author filter selects goes, at every date (a cleaner that
        /// deletes what one author wrote).
        case allDates
    }

    /// The selected transactions: the filters and `before`.
    public var query: HistoryQuery
    /// The rule in words, for people.
    public var rule: String
    public var cutoff: Cutoff
    /// What the cleaner whose rule this is does besides the cut-off, for people.
    public var notes: [String] = []

    /// The transactions `cutoff` selects among those `query` selects; a strategy's cut-off is
    /// the one `report` computed for it (none without a report).
    public static func of(_ cutoff: PurgeCutoff, narrowing query: HistoryQuery, report: MergeStateReport?) throws
        -> PurgeSelection
    {
        switch cutoff {
        case .before(let bound, let rule):
            return before(bound, narrowing: query, rule: rule)
        case .strategy(let strategy):
            guard let report else { throw PurgeSelectionError.noCutoff(strategy) }
            return try Self.strategy(strategy, report: report, narrowing: query)
        }
    }

    /// Transactions before `bound` among those `query` selects; `rule` says so in words.
    public static func before(_ bound: HistoryQuery.Bound, narrowing query: HistoryQuery, rule: String)
        -> PurgeSelection
    {
        var query = query
        query.before = bound
        return PurgeSelection(query: query, rule: rule, cutoff: .bound(bound))
    }

    /// What `strategy` would purge now, from the cut-off `report` computed for it (its author
    /// filter too, unless `query` names authors); nothing when it would not purge. A strategy
    /// without a cut-off date deletes only its authors' transactions: authors `query` names
    /// narrow them, they never replace them.
    public static func strategy(_ strategy: CleanerStrategy, report: MergeStateReport, narrowing query: HistoryQuery)
        throws -> PurgeSelection
    {
        guard let effect = report.cleaner(strategy) else { throw PurgeSelectionError.noCutoff(strategy) }
        let cutoff = effect.cutoff
        let narrowed = query != HistoryQuery()
        var query = query
        var selectsNothing = !cutoff.purges
        if let filter = cutoff.authorFilter {
            let own = filter.map { HistoryQuery.NameFilter.value($0) }
            if query.authors.isEmpty {
                query.authors = own
            } else if cutoff.allDates {
                query.authors = query.authors.filter(own.contains)
                selectsNothing = selectsNothing || query.authors.isEmpty
            }
        }
        // Nothing selected: a transaction number below every real one. No cut-off date: no bound.
        query.before = selectsNothing ? .transaction(Int64.min) : cutoff.cutoff.map { HistoryQuery.Bound.date($0) }
        var notes = cutoff.notes
        if cutoff.resetsKeysAfterPurge {
            notes.append("then it sets every actor's key to nil, so each one reads again all the history that is left")
        }
        if let most = effect.transactionsToDeleteAtMost, most > effect.transactionsToDelete {
            // The counts are the cleaner's own; a selection narrowed further has counts of its own.
            let counts = narrowed ? "" : ", so the cleaner deletes \(effect.transactionsToDelete)–\(most) transactions"
            notes.append(
                """
                its cut-off is a date kept in whole seconds (an XML plist): the app's own is up to a second \
                later\(counts); this purge cuts at the date kept
                """
            )
        }
        let cut: Cutoff =
            cutoff.cutoff.map { .bound(.date($0)) } ?? (cutoff.allDates ? .allDates : .none(cutoff.reason))
        return PurgeSelection(query: query, rule: "\(strategy.title): \(cutoff.reason)", cutoff: cut, notes: notes)
    }

    /// The cut on the time axis (Cocoa seconds): the date, or the timestamp of
    /// the first transaction at or after the number; +∞ when every transaction
    /// is before it, nil when there is no cut or it cannot be placed.
    public func timestamp(in store: HistoryStore) throws -> Double? {
        guard case .bound(let bound) = cutoff else { return nil }
        if case .date(let date) = bound { return date }
        guard let number = store.transactionNumber(of: bound), number > .min else { return nil }
        guard let first = try store.read({ try store.firstTransaction(from: number, $0) }) else { return .infinity }
        return first.timestamp
    }
}

/// A selection that cannot be made.
public enum PurgeSelectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The merge-state report has no cut-off for the strategy.
    case noCutoff(CleanerStrategy)

    public var description: String {
        switch self {
        case .noCutoff(let s): return "no cut-off was computed for the strategy \(s.rawValue)"
        }
    }
}
