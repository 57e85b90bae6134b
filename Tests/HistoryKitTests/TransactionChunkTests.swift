import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// Reading in chunks on several connections gives what one read gives: every
/// matching transaction once (its change count too), with its changes, chunk after
/// chunk in order.
@Suite struct TransactionChunkTests {
    /// A transaction as read (its change count too) and its decoded changes.
    private struct Read: Equatable {
        var transaction: Transaction
        var changes: [Change]
        var number: Int64 { transaction.number }
    }

    private final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var chunks: [Int: [Read]] = [:]
    }

    private func inOneGo(_ store: HistoryStore, _ query: HistoryQuery) throws -> [Read] {
        var out: [Read] = []
        try store.forEachTransactionWithChanges(query, decoder: try store.makeDecoder(model: store.resolveModel())) {
            tx, changes in
            var read = Read(transaction: tx, changes: [])
            try changes.forEach { read.changes.append($0) }
            out.append(read)
        }
        return out
    }

    /// The chunks' transactions in chunk order, or nil when the query was not split.
    private func inChunks(_ store: HistoryStore, _ query: HistoryQuery, span: Int64) throws -> [Read]? {
        let collected = Collected()
        let split = try store.readSplit(
            query, decoder: try store.makeDecoder(model: store.resolveModel()), minimum: 0, span: span
        ) { chunk in
            var reads: [Read] = []
            try chunk.forEach { tx, changes in
                var read = Read(transaction: tx, changes: [])
                try changes.forEach { read.changes.append($0) }
                #expect(chunk.numbers?.contains(tx.number) == true)
                reads.append(read)
            }
            collected.lock.withLock { collected.chunks[chunk.index] = reads }
        }
        guard split else { return nil }
        #expect(collected.chunks.keys.sorted() == Array(0..<collected.chunks.count))
        return collected.chunks.keys.sorted().flatMap { collected.chunks[$0] ?? [] }
    }

    private final class CollectedChanges: @unchecked Sendable {
        let lock = NSLock()
        var chunks: [Int: [Change]] = [:]
    }

    /// The chunks' changes in chunk order (plain ones as decoded), or nil when the query was not split.
    private func changesInChunks(_ store: HistoryStore, _ query: HistoryQuery, span: Int64) throws -> [Change]? {
        let collected = CollectedChanges()
        let split = try store.readChangesSplit(
            query, decoder: try store.makeDecoder(model: store.resolveModel()), minimum: 0, span: span
        ) { chunk in
            var changes: [Change] = []
            try chunk.forEach(plain: { changes.append($0.change) }, decoded: { changes.append($0) })
            collected.lock.withLock { collected.chunks[chunk.index] = changes }
        }
        guard split else { return nil }
        return collected.chunks.keys.sorted().flatMap { collected.chunks[$0] ?? [] }
    }

    @Test(arguments: FieldSummaryTests.stores) func chunksReadWhatOneReadReads(store path: String) throws {
        let store = try HistoryStore.open(path)
        let all = try inOneGo(store, HistoryQuery())
        guard let first = all.first, let last = all.last else { return }
        let author = try store.fieldSummaries(.author).first { $0.value != nil }?.value
        let entity = store.catalog.entities.first?.name
        let middle = all[all.count / 2].number
        var queries = [
            HistoryQuery(), HistoryQuery(after: .transaction(first.number + 1), before: .transaction(middle)),
            HistoryQuery(changeTypes: [.update, .delete]),
        ]
        if let author { queries.append(HistoryQuery(authors: [.value(author), .none])) }
        if let entity { queries.append(HistoryQuery(entities: [entity], includeSubentities: true)) }
        // Objects: their chunks walk the transactions beside the matching changes. The most
        // changed object, and with an author filter beside it.
        let objects = all.flatMap(\.changes).compactMap { change in
            change.entityName.map { ObjectReference(entityName: $0, primaryKey: change.entityPK) }
        }
        let counts = Dictionary(objects.map { ($0, 1) }, uniquingKeysWith: +)
        if let (object, _) = counts.max(by: { ($0.value, $1.key.description) < ($1.value, $0.key.description) }) {
            queries.append(HistoryQuery(objects: [object]))
            if let author { queries.append(HistoryQuery(authors: [.value(author)], objects: [object])) }
            queries.append(
                HistoryQuery(objects: [ObjectReference(entityName: object.entityName, primaryKey: Int64.max)]))
        }
        let multicore = ProcessInfo.processInfo.activeProcessorCount > 1
        for query in queries {
            #expect(try store.hasTransactions(query) == !(try inOneGo(store, query)).isEmpty, "\(path) \(query)")
            for span: Int64 in [1, 7, last.number - first.number + 1] {
                let chunked = try inChunks(store, query, span: span)
                #expect(multicore == (chunked != nil), "\(path)")
                if let chunked { #expect(chunked == (try inOneGo(store, query)), "\(path) \(query) span \(span)") }
                // Changes alone are read in chunks when no condition is on their transactions.
                let changes = try changesInChunks(store, query, span: span)
                let alone = query.after == nil && query.before == nil && query.authors.isEmpty
                #expect((multicore && alone) == (changes != nil), "\(path) \(query)")
                if let changes {
                    var expected: [Change] = []
                    try store.forEachChange(query, decoder: try store.makeDecoder(model: store.resolveModel())) {
                        expected.append($0)
                    }
                    #expect(changes == expected, "\(path) \(query) span \(span)")
                }
            }
        }
        // A limit or newest first: read in one go, nothing called.
        #expect(try inChunks(store, HistoryQuery(limit: 10), span: 1) == nil)
        #expect(try inChunks(store, HistoryQuery(order: .descending), span: 1) == nil)
        #expect(
            try store.readSplit(
                HistoryQuery(), decoder: try store.makeDecoder(model: store.resolveModel()),
                minimum: last.number - first.number + 1
            ) { _ in
                Issue.record("called for a store smaller than the minimum")
            } == false)
    }

    /// Changes whose transaction number is no transaction's (REAL, TEXT, NULL, a number no
    /// transaction has) are in no chunk, as in no read of one transaction's changes.
    @Test func changesOfNoTransactionAreLeftOut() throws {
        let dir = try TemporaryDirectory()
        let path = try editedTasksStore(in: dir) { db in
            let template =
                """
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT \
                ?, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ? FROM ACHANGE LIMIT 1
                """
            for (i, number) in [DatabaseValue.null, 3.5.databaseValue, "x".databaseValue, 10_000.databaseValue]
                .enumerated()
            {
                try db.execute(sql: template, arguments: [100_000 + i, number])
            }
            // A transaction between two others without changes of its own.
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID = 6")
        }
        let store = try HistoryStore.open(path)
        let all = try inOneGo(store, HistoryQuery())
        #expect(all.contains { $0.number == 6 && $0.changes.isEmpty })
        #expect(!all.flatMap(\.changes).contains { $0.changeID >= 100_000 })
        for span: Int64 in [1, 3, 1000] {
            if let chunked = try inChunks(store, HistoryQuery(), span: span) { #expect(chunked == all, "span \(span)") }
        }
    }

    /// Changes read alone in chunks are those one read lists: those of no transaction (numbered
    /// between two, past the last, or a REAL between two chunks') too; a NULL or text number,
    /// which one read lists first or last, leaves the read in one go.
    @Test func changesInChunksKeepChangesOfNoTransaction() throws {
        let dir = try TemporaryDirectory()
        let numbers: [DatabaseValue] = [(3.5).databaseValue, Int64(10_000).databaseValue, Int64(7).databaseValue]
        let path = try editedTasksStore(in: dir) { db in
            let template =
                """
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT \
                ?, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ? FROM ACHANGE LIMIT 1
                """
            for (i, number) in numbers.enumerated() { try db.execute(sql: template, arguments: [100_000 + i, number]) }
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK = 7")
        }
        let store = try HistoryStore.open(path)
        var all: [Change] = []
        try store.forEachChange(HistoryQuery(), decoder: try store.makeDecoder(model: store.resolveModel())) {
            all.append($0)
        }
        #expect(all.filter { $0.changeID >= 100_000 }.count == 3)
        for span: Int64 in [1, 3, 1000] {
            let chunked = try changesInChunks(store, HistoryQuery(), span: span)
            #expect(chunked == nil ? Cores.usable == 1 : chunked == all, "span \(span)")
        }
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "UPDATE ACHANGE SET ZTRANSACTIONID = 'x' WHERE Z_PK = 100000") }
        try queue.close()
        #expect(try changesInChunks(try HistoryStore.open(path), HistoryQuery(), span: 1) == nil)
    }

    /// A chunk that throws stops the others taking chunks, and its error is thrown.
    @Test func aFailingChunkStopsTheRead() throws {
        struct Failure: Error {}
        let store = try HistoryStore.open(Repository.fixtures + "/AppGroup/Tasks.sqlite")
        let collected = Collected()
        // Which chunks began after chunk 2 had thrown. Between its throw and the queue's stop (the
        // error unwinding on its thread) another thread may take chunks: each one taken after the
        // throw lasts 100 ms, so only a thread that took none in a whole second would let most of
        // the 31 after it begin (a sanitizer's build on two busy cores once let all of them, at
        // no time each).
        var failed = false
        var startedAfter: [Int] = []
        #expect(throws: Failure.self) {
            _ = try store.readSplit(
                HistoryQuery(), decoder: try store.makeDecoder(model: store.resolveModel()), minimum: 0, span: 1
            ) { chunk in
                let late = try collected.lock.withLock { () -> Bool in
                    collected.chunks[chunk.index] = []
                    if failed { startedAfter.append(chunk.index) }
                    if chunk.index == 2 {
                        failed = true
                        throw Failure()
                    }
                    return failed
                }
                if late { usleep(100_000) }
            }
        }
        #expect(collected.chunks[2] != nil)
        #expect(collected.chunks.count < 34, "every chunk was read: the failure stopped nothing")
        #expect(startedAfter.count < 10, "\(startedAfter)")
    }
}
