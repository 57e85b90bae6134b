import Foundation
import GRDB

/// The changes an object filter matches, found by scanning `ACHANGE`: Core
/// Data keeps no index on `(ZENTITY, ZENTITYPK)` and the store must not be
/// changed, so one pass in table order (split over the cores) finds them; the
/// query then looks them up by number.
package struct ChangeMatches: Equatable {
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
    package func historySQL(_ query: HistoryQuery, in db: Database) throws -> HistorySQL {
        let plain = try HistorySQL(store: self, query: query)
        guard !query.objects.isEmpty, let scan = plain.changeMatchSelect(), try spansManyTransactions(query, db) else {
            return plain
        }
        switch try scanChanges(scan, arguments: plain.changeFilterArguments, db: db) {
        case nil: return plain
        case .tooMany?: return try HistorySQL(store: self, query: query, scanningObjects: true)
        case .found(let matches)?: return try HistorySQL(store: self, query: query, matches: matches)
        }
    }

    /// Whether the query's transaction bounds leave more than a few transactions to read.
    private func spansManyTransactions(_ query: HistoryQuery, _ db: Database) throws -> Bool {
        guard let span = try numberSpan(query, db) else { return false }
        return UInt64(bitPattern: span.upperBound &- span.lowerBound) >= UInt64(ChangeMatches.scanFromTransactions)
    }

    /// What a scan for an object filter's changes found.
    private enum Scanned {
        case found(ChangeMatches)
        /// More than a list holds (the parts stopped there).
        case tooMany
    }

    /// Runs `select` (``HistorySQL/changeMatchSelect()``) over the change numbers
    /// of this snapshot, in one part per core; nil when the table is empty. The parts stop
    /// once they have found more than a list holds between them.
    private func scanChanges(_ select: String, arguments: StatementArguments, db: Database) throws -> Scanned? {
        // The matches the parts found between them.
        let total = Locked(0)
        guard
            let found = try readInParts(
                of: "ACHANGE", db, parallelFrom: 0,
                { db, range -> [(Int64, Int64)]? in
                    var args = arguments
                    args += [range.lowerBound, range.upperBound]
                    var rows: [(Int64, Int64)] = []
                    let cursor = try RawCursor(db.makeStatement(sql: select), arguments: args)
                    defer { cursor.finish() }
                    while try cursor.next() {
                        rows.append((cursor.int64(0), cursor.int64(1)))
                        // The count shared by the parts, added to every 1,024 rows.
                        if rows.count % 1_024 == 0, add(1_024, to: total) > ChangeMatches.listLimit { return nil }
                    }
                    return add(rows.count % 1_024, to: total) > ChangeMatches.listLimit ? nil : rows
                })
        else { return nil }
        guard !found.contains(where: { $0 == nil }) else { return .tooMany }
        let all = found.compactMap { $0 }.joined()
        return .found(
            ChangeMatches(changeIDs: all.map(\.0).sorted(), transactionNumbers: Array(Set(all.map(\.1))).sorted()))
    }
}

/// Adds `more` to the count the parts of a scan share; the count after.
private func add(_ more: Int, to total: Locked<Int>) -> Int {
    total.withLock { count in
        count += more
        return count
    }
}
