import Foundation
import GRDB
import HistoryKit
import TestSupport
import Testing

/// What protects a store from `purge --execute`, as the documentation says: the
/// check that the selection is what the preview showed, and the write lock. A
/// connection that is only open does not stop a purge.
@Suite struct PurgeGuardTests {
    private func copyOfFixture() throws -> (TemporaryDirectory, String) {
        let dir = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "Tasks.sqlite")
        let path = dir.file("Tasks.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return (dir, path)
    }

    private func transactionCount(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? -1 }
    }

    @Test func aCommitSinceThePreviewStopsThePurge() throws {
        let (dir, path) = try copyOfFixture()
        let store = try HistoryStore.open(path)
        let plan = try PurgePlan.make(
            HistoryQuery(before: .date(.infinity)), in: store,
            mergeState: MergeStateAnalysis.gather(in: store, MergeStateRequest(now: 762_685_200)))
        #expect(plan.preview.transactionCount == 34)
        // An app saves after the preview: one more transaction before the cut.
        let app = try DatabaseQueue(path: path)
        try app.write { db in
            try db.execute(
                sql:
                    """
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZTIMESTAMP) SELECT MAX(Z_PK) + 1, Z_ENT, 1, \
                    800000000 FROM ATRANSACTION
                    """
            )
        }
        try app.close()
        #expect(throws: RepairError.self) {
            try PurgeExecutor.execute(plan, options: PurgeOptions(backup: .at(dir.file("backup.sqlite"))))
        }
        #expect(try transactionCount(path) == 35)
    }

    @Test func anIdleConnectionDoesNotStopThePurge() throws {
        let (dir, path) = try copyOfFixture()
        defer { withExtendedLifetime(dir) {} }
        let idle = try DatabaseQueue(path: path)
        defer { try? idle.close() }
        #expect(try idle.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") } == 34)
        let store = try HistoryStore.open(path)
        let plan = try PurgePlan.make(
            HistoryQuery(before: .transaction(20)), in: store,
            mergeState: MergeStateAnalysis.gather(in: store, MergeStateRequest(now: 762_685_200)))
        let result = try PurgeExecutor.execute(plan, options: PurgeOptions(backup: .skip))
        #expect(result.deletedTransactions == 19)
        // Executing closed the store it was planned on: it says so rather than read beside the writer.
        #expect(store.isClosed)
        #expect(throws: StoreError.closed(path: path)) { try store.transactionCount() }
        #expect(try idle.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") } == 15)
    }
}
