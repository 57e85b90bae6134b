import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// A change list's transactions are read ahead in windows: each lookup gives what reading every
/// transaction gives for that number, in either direction and across windows, nil where there is none,
/// and tells each transaction once.
@Suite struct TransactionLookupTests {
    @Test func lookupsGiveEachTransactionAsReadAlone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Long.sqlite")
        // More transactions than a window holds, with a gap (purged numbers) in the middle.
        let count = Int(TransactionLookup.window) * 2 + 300
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .rollback,
                transactions: []),
            to: path, generated: (count, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 1) }))
        let gap: ClosedRange<Int64> = 5000...5100
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN 5000 AND 5100") }
        try queue.close()
        let store = try HistoryStore.open(path)
        var all: [Int64: Transaction] = [:]
        try store.forEachTransaction(HistoryQuery()) { all[$0.number] = $0 }
        #expect(all.count == count - gap.count)
        let numbers = Array(Int64(1)...Int64(count) + 5)
        for order in [numbers, numbers.reversed()] {
            var told: [Int64] = []
            let lookup = TransactionLookup(store: store) { told.append($0.number) }
            for n in order {
                // A list asks for a transaction once per change: twice here.
                for _ in 0..<2 {
                    let found = try lookup.transaction(n)
                    #expect(found == all[n], "\(n)")
                    #expect((found == nil) == (gap.contains(n) || n > count), "\(n)")
                }
            }
            #expect(told == order.filter { !gap.contains($0) && $0 <= count })
        }
    }
}
