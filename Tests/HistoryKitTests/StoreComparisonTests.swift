import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// ``HistoryDiff/compare(old:oldDecoder:new:newDecoder:query:progress:)`` on stores big enough
/// to be compared range by range on several connections.
@Suite struct StoreComparisonTests {
    /// 12,000 generated transactions of 5 changes each (some of them deletes).
    private static func writeStore(_ path: String) throws {
        let fixture = FixtureStore(model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, transactions: [])
        try StoreWriter.write(
            fixture, to: path, generated: (12_000, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 5) }))
    }

    private static func compare(_ old: String, _ new: String, progress: (Int64) -> Bool = { _ in true }) throws
        -> HistoryDiff
    {
        let (a, b) = (try HistoryStore.open(old), try HistoryStore.open(new))
        return try HistoryDiff.compare(
            old: a, oldDecoder: a.makeDecoder(model: try a.resolveModel()),
            new: b, newDecoder: b.makeDecoder(model: try b.resolveModel()), progress: progress)
    }

    private static func edit(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }

    @Test func purgedRewrittenAndAppendedTransactionsAreFoundInEveryRange() throws {
        let dir = try TemporaryDirectory()
        let (old, new) = (dir.file("Old.sqlite"), dir.file("New.sqlite"))
        try Self.writeStore(old)
        try FileManager.default.copyItem(atPath: old, toPath: new)
        // The old copy lacks the last 10 transactions; the new one is purged through #700, and three
        // transactions far apart are rewritten: a tombstone, an update's ZCOLUMNS, an author.
        try Self.edit(
            old, "DELETE FROM ACHANGE WHERE ZTRANSACTIONID > 11990; DELETE FROM ATRANSACTION WHERE Z_PK > 11990")
        try Self.edit(
            new,
            """
            DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= 700; DELETE FROM ATRANSACTION WHERE Z_PK <= 700;
            UPDATE ACHANGE SET ZTOMBSTONE0 = 'changed' WHERE Z_PK = (SELECT MIN(Z_PK) FROM ACHANGE WHERE ZCHANGETYPE = \
            2 AND ZTRANSACTIONID > 6000);
            UPDATE ACHANGE SET ZCOLUMNS = X'FF' WHERE Z_PK = (SELECT MIN(Z_PK) FROM ACHANGE WHERE ZCHANGETYPE = 1 AND \
            ZTRANSACTIONID > 9000);
            UPDATE ATRANSACTION SET ZAUTHORTS = (SELECT MAX(Z_PK) FROM ATRANSACTIONSTRING WHERE Z_PK <> \
            ATRANSACTION.ZAUTHORTS) WHERE Z_PK = 11001
            """)
        let rewrittenNumbers = try DatabaseQueue(path: new).read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT ZTRANSACTIONID FROM ACHANGE WHERE ZTOMBSTONE0 = 'changed' OR ZCOLUMNS = X'FF' UNION SELECT \
                    11001 ORDER BY 1
                    """)
        }
        #expect(
            rewrittenNumbers.count == 3 && rewrittenNumbers[0] > 6000 && rewrittenNumbers[1] > 9000,
            "\(rewrittenNumbers)")

        var told: [Int64] = []
        let diff = try Self.compare(old, new) {
            told.append($0)
            return true
        }
        // Compared in 24 ranges of 512 numbers, told in order, the last ending at the last number.
        #expect(told.count > 1 && told == told.sorted() && told.last == 12_000, "\(told)")
        #expect(diff.removed.transactions == 700 && diff.removed.changes == 3_500)
        #expect(diff.removed.first?.transactionNumber == 1 && diff.removed.last?.transactionNumber == 700)
        #expect(diff.added.transactions == 10 && diff.added.changes == 50)
        #expect(diff.added.first?.transactionNumber == 11_991 && diff.added.last?.transactionNumber == 12_000)
        #expect(diff.rewritten.transactions == 3 && diff.rewritten.changes == 15, "\(diff.rewritten)")
        #expect(
            diff.rewritten.first?.transactionNumber == rewrittenNumbers[0]
                && diff.rewritten.last?.transactionNumber == 11_001)
        #expect(
            diff.unchanged.transactions == 12_000 - 700 - 10 - 3
                && diff.unchanged.changes == (12_000 - 700 - 10 - 3) * 5)
        // The tallies add up across ranges: every removed change under its entity.
        #expect(diff.removed.entities.reduce(0) { $0 + $1.changes } == 3_500)
        #expect(diff.removed.authors.reduce(0) { $0 + $1.transactions } == 700)
        #expect(diff.effects.reduce(0) { $0 + $1.inserted + $1.updated + $1.deleted + $1.insertedAndDeleted } > 0)

        // Told to stop after the second range: the comparison ends there.
        var ranges = 0
        #expect(throws: HistoryDiffError.stopped) {
            _ = try Self.compare(old, new) { _ in
                ranges += 1
                return ranges < 2
            }
        }
        #expect(ranges == 2)
    }

    /// Person (4) and Project (5) swap numbers in the catalog (its numbers are unique).
    private static let swapInCatalog = """
        UPDATE Z_PRIMARYKEY SET Z_ENT = -4 WHERE Z_ENT = 4; UPDATE Z_PRIMARYKEY SET Z_ENT = 4 WHERE Z_ENT = 5;
        UPDATE Z_PRIMARYKEY SET Z_ENT = 5 WHERE Z_ENT = -4
        """

    /// Entities are matched by name: a store whose entities were renumbered holds the same history.
    @Test func renumberedEntitiesAreTheSame() throws {
        let dir = try TemporaryDirectory()
        let (old, new) = (dir.file("Old.sqlite"), dir.file("New.sqlite"))
        try Self.writeStore(old)
        try FileManager.default.copyItem(atPath: old, toPath: new)
        // Person (4) and Project (5) swap numbers in the catalog and in every change.
        try Self.edit(
            new,
            """
            \(Self.swapInCatalog);
            UPDATE ACHANGE SET ZENTITY = CASE ZENTITY WHEN 4 THEN 5 ELSE 4 END WHERE ZENTITY IN (4, 5)
            """)
        let renumbered = try Self.compare(old, new)
        #expect(renumbered.isIdentical && renumbered.unchanged.transactions == 12_000)
        // Without the catalog's swap, the same changes name other entities.
        try Self.edit(new, Self.swapInCatalog)
        let moved = try Self.compare(old, new)
        let touched = try DatabaseQueue(path: old).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT ZTRANSACTIONID) FROM ACHANGE WHERE ZENTITY IN (4, 5)") ?? 0
        }
        #expect(
            touched > 0 && moved.rewritten.transactions == touched && moved.unchanged.transactions == 12_000 - touched)
    }
}
