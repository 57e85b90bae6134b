import Foundation
import GRDB
import HistoryReading

/// What a listing shows of a store, read through indexes only: no table is scanned.
public struct StoreGlance: Equatable, Sendable {
    public var transactionCount: Int
    public var transactionNumbers: ClosedRange<Int64>?
    /// Oldest and newest numeric `ZTIMESTAMP` (Cocoa seconds).
    public var timestamps: ClosedRange<Double>?
    /// Transactions were deleted from the start of history, or after its last one (a purge).
    public var wasPurged: Bool
}

extension StoreGlance {
    /// Counts and ranges through the indexes of `store`'s `ATRANSACTION` (a few milliseconds at any size).
    public static func read(_ store: HistoryStore) throws -> StoreGlance {
        try store.read { db in
            let (count, minPK, maxPK) =
                try db.firstRow("SELECT COUNT(*), MIN(Z_PK), MAX(Z_PK) FROM ATRANSACTION") {
                    (Int($0.int64(0)), $0.optionalInt64(1), $0.optionalInt64(2))
                } ?? (0, nil, nil)
            var ignored: String?
            let low =
                try db.firstRow("SELECT MIN(ZTIMESTAMP) FROM ATRANSACTION") { $0.number(0, problem: &ignored) } ?? nil
            let high =
                try db.firstRow("SELECT MAX(ZTIMESTAMP) FROM ATRANSACTION WHERE ZTIMESTAMP < ''") {
                    $0.number(0, problem: &ignored)
                } ?? nil
            let highWater = store.catalog.historyMax("TRANSACTION")
            let purged = (minPK ?? 1) > 1 || (highWater.map { $0 > (maxPK ?? 0) } ?? false)
            return StoreGlance(
                transactionCount: count, transactionNumbers: minPK.flatMap { lo in maxPK.map { lo...max(lo, $0) } },
                timestamps: low.flatMap { lo in high.map { lo...max(lo, $0) } }, wasPurged: purged)
        }
    }
}
