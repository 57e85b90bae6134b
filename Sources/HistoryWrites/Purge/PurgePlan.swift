import GRDB
import HistoryAnalysis
import HistoryReading

/// A purge ready to execute: its preview, the SQL selecting its transactions, and
/// the store it was planned on (``PurgeExecutor/execute(_:options:stops:progress:)``
/// closes it before writing).
public struct PurgePlan {
    public let preview: PurgePreview
    /// The store the plan reads; executing closes it.
    public let store: HistoryStore
    /// How many actors have a position the purge could break (it checked them all).
    public let actorsChecked: Int
    /// How many of them are apps' (not CloudKit's exporter, which the store itself tells of).
    public let appActorsChecked: Int
    /// The earliest position among the actors it breaks: purging before it breaks none
    /// of them (a date, or a transaction number for a token); nil when it breaks none.
    public let safeBefore: HistoryQuery.Bound?
    let sql: PurgeSQL

    /// Why executing this plan deserves the user's confirmation, though it breaks no actor
    /// known: it deletes every transaction, or no actor's position was known to check it
    /// against (any app may still need what it deletes). Empty when it deletes nothing.
    public var reasonsToConfirm: [Message] {
        guard preview.transactionCount > 0 else { return [] }
        var reasons: [Message] = []
        if preview.survivingTransactions == 0 { reasons.append("it deletes every transaction of the store") }
        if appActorsChecked == 0 {
            reasons.append(
                """
                no actor's merge position is known (\(Control.defaults), \(Control.token) or \
                \(Control.groupContainer) give them), so nothing tells what an app still has to merge
                """
            )
        }
        return reasons
    }
}

/// The SQL of a purge, built from the store's schema.
struct PurgeSQL: Sendable {
    let matching: String
    let values: [DatabaseValue]
    var arguments: StatementArguments { StatementArguments(values) }
    /// Deletes strings no transaction refers to (nil when the store has no string table).
    let pruneStrings: String?
}

extension PurgePlan {
    /// Previews the purge of the transactions of `store` matching `query` and prepares it for
    /// ``PurgeExecutor``, checking what it breaks of `actors` (from ``MergeStateAnalyzer``) and
    /// `readers` (no default: a caller cannot forget them; the `make` that takes a
    /// ``MergeStateAnalysis`` takes both from it).
    public static func make(
        _ query: HistoryQuery, in store: HistoryStore, actors: [ActorReport], readers: [HiddenReader],
        breakdown: Bool = false
    ) throws -> PurgePlan {
        let preview = try PurgePreview.make(query, in: store, actors: actors, readers: readers, breakdown: breakdown)
        let sql = try HistorySQL(store: store, query: preview.query)
        let refs = ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"].filter {
            store.schema.transactionColumns.contains($0)
        }
        let prune: String? =
            store.schema.hasStringTable && !refs.isEmpty
            ? "DELETE FROM ATRANSACTIONSTRING WHERE Z_PK NOT IN ("
                + refs.map { "SELECT \($0) FROM ATRANSACTION WHERE \($0) IS NOT NULL" }.joined(separator: " UNION ")
                + ")"
            : nil
        let positioned = actors.filter(\.hasBreakablePosition)
        // The earliest position of those it breaks: purging before it breaks none of them.
        let broken = positioned.filter { a in preview.consequences.contains { $0.actor == a.name } }
        let first = broken.min { ($0.effectiveDate ?? .infinity) < ($1.effectiveDate ?? .infinity) }
        let safeBefore = first.flatMap { a in
            a.positionDate.map(HistoryQuery.Bound.date) ?? a.tokenNumber.map(HistoryQuery.Bound.transaction)
        }
        return PurgePlan(
            preview: preview, store: store, actorsChecked: positioned.count,
            appActorsChecked: positioned.filter { $0.kind == .app }.count, safeBefore: safeBefore,
            sql: PurgeSQL(matching: sql.matchingNumbers(), values: sql.argumentValues, pruneStrings: prune))
    }
}
