import Foundation
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// An object changed in more transactions than a list of matches holds is read by one scan of
/// `ACHANGE` and a walk down `ATRANSACTION`: what it reads is what a read of every transaction,
/// filtered here, gives.
@Suite(.tags(.slow)) struct ObjectWalkTests {
    struct Seen: Equatable {
        var number: Int64
        var author: String?
        var timestamp: Double?
        var changeCount: Int
        var changes: [Int64]
    }

    /// Task 1 is updated in six of every seven of 120,000 transactions, each with one generated
    /// change more; read with the object filter under several transaction conditions.
    @Test func theWalkReadsWhatEveryTransactionHolds() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Hot.sqlite")
        let fixture = FixtureStore(model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, transactions: [])
        try StoreWriter.write(
            fixture, to: path,
            generated: (
                120_000,
                { i in
                    var tx = Scenarios.benchmarkTransaction(i, changesPerTransaction: 1)
                    if i % 7 != 3 {
                        tx.changes.insert(
                            .init(entity: "Task", primaryKey: 1, type: .update, updated: ["title"]), at: i % 2)
                    }
                    return tx
                }
            ))
        let store = try HistoryStore.open(path)
        for base in [
            HistoryQuery(),
            HistoryQuery(after: .transaction(50_000)),
            HistoryQuery(authors: [.value("widget")]),
            HistoryQuery(authors: [.none]),
            HistoryQuery(
                after: .transaction(200), before: .transaction(90_000), processIDs: [.value("Tasks")], limit: 500),
            HistoryQuery(changeTypes: [.update]),
        ] {
            try compare(store, base)
        }
    }

    private func compare(_ store: HistoryStore, _ base: HistoryQuery) throws {
        let decoder = store.makeDecoder(model: try store.resolveModel())
        let task = ObjectReference(entityName: "Task", primaryKey: 1)
        var query = base
        query.objects = [task]
        #expect(
            try store.read { db in try store.historySQL(query, in: db).scansObjects },
            "the query is not read by the walk")
        // Every transaction the base query selects, its changes kept when they are the object's.
        var expected: [Seen] = []
        var unlimited = base
        unlimited.limit = nil
        try store.forEachTransactionWithChanges(unlimited, decoder: decoder) { tx, changes in
            var mine: [Int64] = []
            try changes.forEach { if $0.entityName == "Task" && $0.entityPK == 1 { mine.append($0.changeID) } }
            if !mine.isEmpty {
                expected.append(
                    Seen(
                        number: tx.number, author: tx.author, timestamp: tx.timestamp, changeCount: tx.changeCount,
                        changes: mine))
            }
        }
        let all = expected.count
        if let limit = base.limit { expected = Array(expected.prefix(limit)) }
        #expect(expected.count > 100)
        var walked: [Seen] = []
        try store.forEachTransactionWithChanges(query, decoder: decoder) { tx, changes in
            var mine: [Int64] = []
            try changes.forEach { mine.append($0.changeID) }
            walked.append(
                Seen(
                    number: tx.number, author: tx.author, timestamp: tx.timestamp, changeCount: tx.changeCount,
                    changes: mine))
        }
        #expect(walked == expected)
        var transactions: [Seen] = []
        try store.forEachTransaction(query) { tx in
            transactions.append(
                Seen(
                    number: tx.number, author: tx.author, timestamp: tx.timestamp, changeCount: tx.changeCount,
                    changes: []))
        }
        #expect(
            transactions
                == expected.map {
                    Seen(
                        number: $0.number, author: $0.author, timestamp: $0.timestamp, changeCount: $0.changeCount,
                        changes: [])
                })
        #expect(try store.countTransactions(query) == all)
        var changes: [Int64] = []
        try store.forEachChange(query, decoder: decoder) { changes.append($0.changeID) }
        #expect(changes == Array(expected.flatMap(\.changes).prefix(base.limit ?? .max)))
    }
}
