import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit

@Suite struct ActivityTimelineTests {
    private let t0 = LibraryModel.t0

    /// The library fixture: app at t0, +3600 and +7260; widget at +60.25; no author at +120.5; shareExtension at +7200.
    @Test func countsPerAuthorAndBucket() throws {
        let dir = try TemporaryDirectory()
        let store = try HistoryStore.open(try LibraryModel.write(LibraryModel.fixture(), in: dir))
        // 121 buckets over 7260 s: one minute each; the last timestamp falls in the last bucket.
        let timeline = try store.activityTimeline(bucketCount: 121)
        #expect(timeline.range == t0...(t0 + 7260))
        #expect(timeline.bucketSeconds == 60)
        #expect(timeline.undatedCount == 0 && timeline.datedCount == 6 && timeline.overflow == nil)
        func nonzero(_ lane: ActivityTimeline.Lane) -> [Int: Int] {
            Dictionary(
                uniqueKeysWithValues: lane.counts.enumerated().filter { $0.element > 0 }.map { ($0.offset, $0.element) }
            )
        }
        #expect(timeline.lanes.map(\.author) == ["app", nil, "shareExtension", "widget"])
        #expect(timeline.lanes.map(\.total) == [3, 1, 1, 1])
        #expect(nonzero(timeline.lanes[0]) == [0: 1, 60: 1, 120: 1])
        #expect(nonzero(timeline.lanes[1]) == [2: 1])
        #expect(nonzero(timeline.lanes[2]) == [120: 1])
        #expect(nonzero(timeline.lanes[3]) == [1: 1])
        #expect(
            timeline.bucket(of: t0 + 7260) == 120 && timeline.bucket(of: t0 - 1) == nil
                && timeline.bucket(of: t0 + 7261) == nil)
        // The same totals as the author summary.
        let summaries = try store.fieldSummaries(.author, countingChanges: false)
        #expect(
            Dictionary(uniqueKeysWithValues: summaries.map { ($0.value ?? "-", $0.transactionCount) })
                == Dictionary(uniqueKeysWithValues: timeline.lanes.map { ($0.author ?? "-", $0.total) }))

        let top = timeline.topLanes(1)
        #expect(top.lanes.map(\.author) == ["app"])
        #expect(top.others?.total == 3 && top.otherAuthors == 3 && !top.othersOverflowed)
        #expect(top.others.map(nonzero) == [1: 1, 2: 1, 120: 1])
        // One other author keeps its lane.
        #expect(timeline.topLanes(3).others == nil && timeline.topLanes(3).lanes.count == 4)
    }

    @Test func damagedTimestampsAndAuthorsAreReadAsWhatTheyAre() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .rollback), in: dir)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = NULL WHERE Z_PK = 2")
            try db.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = 'yesterday' WHERE Z_PK = 3")
            try db.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = 1e300 WHERE Z_PK = 6")
            // Inline names, a number where a name belongs, text where a string number belongs.
            try db.execute(sql: "UPDATE ATRANSACTION SET ZAUTHORTS = NULL, ZAUTHOR = 'legacy' WHERE Z_PK = 1")
            try db.execute(sql: "UPDATE ATRANSACTION SET ZAUTHORTS = 'x', ZAUTHOR = 42 WHERE Z_PK = 4")
        }
        try queue.close()
        let timeline = try HistoryStore.open(path).activityTimeline(bucketCount: 10)
        #expect(timeline.undatedCount == 3)
        #expect(timeline.range == t0...(t0 + 7200))
        #expect(timeline.lanes.map(\.author) == ["42", "legacy", "shareExtension"])
        #expect(timeline.lanes.map { $0.counts.firstIndex(of: 1) } == [5, 0, 9])
    }

    @Test func authorsPastTheLimitShareOneLane() throws {
        let dir = try TemporaryDirectory()
        let extra = 5
        var fixture = LibraryModel.fixture(journalMode: .rollback)
        fixture.transactions = (0..<(ActivityTimeline.maxLanes + extra)).map { i in
            .init(timestamp: t0 + Double(i), author: "author-\(i)", changes: [])
        }
        let timeline = try HistoryStore.open(try LibraryModel.write(fixture, in: dir)).activityTimeline(bucketCount: 4)
        #expect(timeline.lanes.count == ActivityTimeline.maxLanes)
        #expect(timeline.overflow?.total == extra)
        #expect(timeline.datedCount == ActivityTimeline.maxLanes + extra)
        let top = timeline.topLanes(6)
        #expect(top.lanes.count == 6 && top.othersOverflowed)
        #expect(top.others?.total == ActivityTimeline.maxLanes + extra - 6)
    }

    @Test func aStoreWithoutDatedTransactions() throws {
        let dir = try TemporaryDirectory()
        var fixture = LibraryModel.fixture(journalMode: .rollback)
        fixture.transactions = []
        let empty = try HistoryStore.open(try LibraryModel.write(fixture, in: dir)).activityTimeline(bucketCount: 50)
        #expect(empty.range == nil && empty.lanes.isEmpty && empty.undatedCount == 0)
        #expect(empty.bucket(of: t0) == nil)
    }
}
