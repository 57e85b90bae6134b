import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// A read of changes with their transactions gives each change the transaction a read of that
/// number alone gives, and none for a change whose transaction is gone, read in chunks
/// (transactions read beside the changes) or in one go (looked up).
@Suite struct ChangeTransactionTests {
    @Test(arguments: [ReadLayout.split(minimum: 1, span: 64), .oneRead])
    func eachChangeHasItsTransaction(layout: ReadLayout) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Orphans.sqlite")
        let count = 1_000
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .rollback,
                transactions: []),
            to: path, generated: (count, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 2) }))
        // Transactions gone from under their changes, one at a chunk's edge among them.
        let gone: Set<Int64> = [1, 63, 64, 65, 500, 1_000]
        let queue = try DatabaseQueue(path: path)
        try queue.write {
            try $0.execute(
                sql: "DELETE FROM ATRANSACTION WHERE Z_PK IN (\(gone.map(String.init).joined(separator: ",")))")
        }
        try queue.close()
        let store = try HistoryStore.open(path)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        // Read first: a chunk's thread reads on a connection of its own.
        var all: [Int64: Transaction] = [:]
        try store.forEachTransaction(HistoryQuery()) { all[$0.number] = $0 }
        #expect(all.count == count - gone.count)
        let expected = all
        let seen = Locked<[Int64: Int]>([:])
        func check(_ number: Int64, _ found: ChangeTransaction) throws {
            #expect(found.transaction(storeUUID: store.storeUUID) == expected[number], "\(number)")
            if case .gone = found { #expect(gone.contains(number)) }
            seen.withLock { $0[number, default: 0] += 1 }
        }
        try store.readChanges(HistoryQuery(), decoder: decoder, layout: layout) { chunk in
            try chunk.forEach(
                withTransactions: { try check($0.transactionNumber, $1) },
                decoded: { try check($0.transactionNumber, $1) })
        }
        // Every change once.
        #expect(seen.withLock { $0 } == Dictionary(uniqueKeysWithValues: (1...Int64(count)).map { ($0, 2) }))
    }
}
