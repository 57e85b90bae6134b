import Foundation
import GRDB

/// The changes an object filter matches, found by scanning `ACHANGE`: Core
/// Data keeps no index on `(ZENTITY, ZENTITYPK)` and the store must not be
/// changed, so one pass in table order (split over the cores) finds them; the
/// query then looks them up by number.
struct ChangeMatches: Equatable {
    /// Change numbers, ascending.
    var changeIDs: [Int64]
    /// Their transactions' numbers, ascending, each once.
    var transactionNumbers: [Int64]

    /// More than this many matches and the conditions themselves are cheaper than a list.
    static let listLimit = 100_000
    /// Ranges of fewer transactions than this are read through the transaction index instead.
    static let scanFromTransactions: Int64 = 20_000
}

extension HistoryStore {
    /// The SQL of `query`, read inside `db`'s transaction. With an object filter
    /// over more than a few transactions, the matching changes are found first by
    /// a scan of the change table (``ChangeMatches``).
    func historySQL(_ query: HistoryQuery, in db: Database) throws -> HistorySQL {
        let plain = try HistorySQL(store: self, query: query)
        guard !query.objects.isEmpty, let scan = plain.changeMatchSelect(), try spansManyTransactions(query, db) else { return plain }
        guard let matches = try scanChanges(scan, arguments: plain.changeFilterArguments, db: db) else { return plain }
        guard matches.changeIDs.count <= ChangeMatches.listLimit else { return try HistorySQL(store: self, query: query, scanningObjects: true) }
        return try HistorySQL(store: self, query: query, matches: matches)
    }

    /// Whether the query's transaction bounds leave more than a few transactions to read.
    private func spansManyTransactions(_ query: HistoryQuery, _ db: Database) throws -> Bool {
        guard let span = try numberSpan(query, db) else { return false }
        return UInt64(bitPattern: span.upperBound &- span.lowerBound) >= UInt64(ChangeMatches.scanFromTransactions)
    }

    /// Runs `select` (``HistorySQL/changeMatchSelect()``) over the change numbers
    /// of this snapshot, in one part per core; nil when the table is empty.
    private func scanChanges(_ select: String, arguments: StatementArguments, db: Database) throws -> ChangeMatches? {
        guard let found = try readInParts(of: "ACHANGE", db, parallelFrom: 0, { db, range -> [(Int64, Int64)] in
            var args = arguments
            args += [range.lowerBound, range.upperBound]
            var rows: [(Int64, Int64)] = []
            let cursor = try RawCursor(db.makeStatement(sql: select), arguments: args)
            defer { cursor.finish() }
            while try cursor.next() {
                rows.append((cursor.int64(0), cursor.int64(1)))
                if rows.count > ChangeMatches.listLimit { break }
            }
            return rows
        }) else { return nil }
        let all = found.joined()
        return ChangeMatches(changeIDs: all.map(\.0).sorted(), transactionNumbers: Array(Set(all.map(\.1))).sorted())
    }
}
