import ArgumentParser
import Foundation
import HistoryKit

/// `--before` or `--strategy`: the purge `purge` previews, and the cut-off
/// `timeline` and `report` mark.
struct CutoffOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Purge transactions before this date, tx:N, token:FILE or token:STOREUUID:N (as deleteHistory(before:)).", valueName: "position"))
    var before: String?

    @Option(help: ArgumentHelp("Use a cleaner's cut-off: \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var strategy: String?

    func validate() throws {
        if before != nil && strategy != nil { throw ValidationError("give --before or --strategy, not both") }
        if let strategy, CleanerStrategy(rawValue: strategy) == nil {
            throw ValidationError("unknown strategy '\(strategy)'; known: \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    var isGiven: Bool { before != nil || strategy != nil }

    /// The transactions the purge selects: `query` (its name filters and `after`)
    /// bounded by `--before` or the strategy's cut-off from `report`; nil when
    /// neither option is given.
    func selection(narrowing query: HistoryQuery, report: MergeStateReport?, parser: PositionParser) throws -> PurgeSelection? {
        var query = query
        if let before {
            let bound = try parser.bound(before, option: "--before")
            query.before = bound
            return PurgeSelection(query: query, rule: "before \(before)", cutoff: .bound(bound))
        }
        guard let name = strategy, let strategy = CleanerStrategy(rawValue: name) else { return nil }
        // The analyzer computed every strategy's cut-off from the same actors.
        guard let cutoff = report?.cutoffs.first(where: { $0.strategy == strategy }) else {
            throw ValidationError("--strategy needs the merge state of the actors")
        }
        if query.authors.isEmpty, let filter = cutoff.authorFilter { query.authors = filter.map { HistoryQuery.NameFilter.value($0) } }
        // No cut-off: nothing is selected (a transaction number below every real one).
        query.before = cutoff.cutoff.map { HistoryQuery.Bound.date($0) } ?? .transaction(Int64.min)
        return PurgeSelection(query: query, rule: "\(strategy.title): \(cutoff.reason)",
                              cutoff: cutoff.cutoff.map { .bound(.date($0)) } ?? .none(cutoff.reason))
    }
}

/// A purge chosen with ``CutoffOptions``.
struct PurgeSelection {
    /// Where the cut falls.
    enum Cutoff {
        /// Transactions before this bound go.
        case bound(HistoryQuery.Bound)
        /// The strategy would not purge now, for this reason.
        case none(String)
    }

    var query: HistoryQuery
    /// The rule in words, for people.
    var rule: String
    var cutoff: Cutoff

    /// The cut on the time axis (Cocoa seconds): the date, or the timestamp of
    /// the first transaction at or after the number; +∞ when every transaction
    /// is before it, nil when there is no cut or it cannot be placed.
    func timestamp(in store: HistoryStore) throws -> Double? {
        guard case .bound(let bound) = cutoff else { return nil }
        let number: Int64
        switch bound {
        case .date(let date): return date
        case .transaction(let n): number = n
        case .token(let token):
            guard let n = token.transactionNumber(forStore: store.storeUUID) else { return nil }
            number = n
        }
        guard number > Int64.min else { return nil }
        var first: Transaction?
        try store.forEachTransaction(HistoryQuery(after: .transaction(number - 1), limit: 1)) { first = $0 }
        guard let first else { return .infinity }
        return first.timestamp
    }
}
