import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

@Suite struct ObjectReferenceTests {
    @Test func parsesWhatAppsLog() throws {
        let uuid = "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87"
        #expect(try ObjectReference(parsing: "Task/p3") == ObjectReference(entityName: "Task", primaryKey: 3))
        #expect(try ObjectReference(parsing: " Task/3 ") == ObjectReference(entityName: "Task", primaryKey: 3))
        #expect(
            try ObjectReference(parsing: "x-coredata://\(uuid)/Task/p3")
                == ObjectReference(entityName: "Task", primaryKey: 3, storeUUID: uuid))
        // An NSManagedObjectID's description.
        #expect(
            try ObjectReference(parsing: "0x8b1c2e5f90a01234 <x-coredata://\(uuid)/Task/p3>")
                == ObjectReference(entityName: "Task", primaryKey: 3, storeUUID: uuid))
        #expect(
            ObjectReference(entityName: "Task", primaryKey: 3).uri(storeUUID: uuid) == "x-coredata://\(uuid)/Task/p3")
        for bad in [
            "", "Task", "Task/", "/p3", "Task/p0", "Task/p-2", "Task/pX", "Task/p3/x", "x-coredata:Task/p3",
            "x-coredata://\(uuid)/Task",
            "x-coredata:///Task/tA1B2", "x-coredata://\(uuid)/Task/t5", "Task/p99999999999999999999",
        ] {
            #expect(throws: ObjectReferenceError.self, "\(bad)") { try ObjectReference(parsing: bad) }
        }
    }
}

@Suite struct ObjectScanTests {
    /// The object filter's scan (split over connections) finds what a plain query does, on a store
    /// big enough to be scanned and with numbers far apart.
    @Test func theScanFindsWhatTheConditionsFind() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Big.sqlite")
        // Task 5 changed three times first, then 30,000 generated transactions (each object changed once).
        let edits = (0..<3).map { i in
            FixtureStore.Transaction(
                timestamp: Scenarios.baseTime + Double(i), author: "app",
                changes: [
                    FixtureStore.Change(
                        entity: "Task", primaryKey: 5, type: i == 0 ? .insert : .update, updated: i == 0 ? [] : ["done"]
                    )
                ])
        }
        let fixture = FixtureStore(model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, transactions: edits)
        try StoreWriter.write(
            fixture, to: path, generated: (30_000, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 3) }))
        let store = try HistoryStore.open(path)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        // Task 5 and the objects of changes early, in the middle and at the end, found by SQL.
        let queue = try DatabaseQueue(path: path)
        let objects = try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.Z_NAME, c.ZENTITY, c.ZENTITYPK FROM ACHANGE c JOIN Z_PRIMARYKEY p ON p.Z_ENT = c.ZENTITY
                    WHERE c.Z_PK IN (1, 45001, 89999) ORDER BY c.Z_PK
                    """
            ).map { (name: $0[0] as String, entity: $0[1] as Int64, key: $0[2] as Int64) }
        }
        try queue.close()
        #expect(objects.count == 3 && objects[0].name == "Task" && objects[0].key == 5)
        for object in objects {
            let query = HistoryQuery(objects: [ObjectReference(entityName: object.name, primaryKey: object.key)])
            // With the scan (the whole store) and without it (a range of fewer transactions than the scan starts at).
            var scanned: [Int64] = []
            try store.forEachChange(query, decoder: decoder) { scanned.append($0.changeID) }
            let sql = try HistorySQL(store: store, query: query)
            #expect(
                try store.read { db in
                    try sql.changeMatchSelect() != nil && store.historySQL(query, in: db).changeMatchSelect() == nil
                })
            let plain = try store.read { db -> [Int64] in
                try Int64.fetchAll(
                    db, sql: "SELECT Z_PK FROM ACHANGE WHERE ZENTITY = ? AND ZENTITYPK = ? ORDER BY Z_PK",
                    arguments: [object.entity, object.key])
            }
            #expect(scanned == plain && !plain.isEmpty)
            // Transactions with their changes: only the object's, each transaction once.
            var streamed: [Int64] = []
            var numbers: [Int64] = []
            try store.forEachTransactionWithChanges(query, decoder: decoder) { tx, changes in
                numbers.append(tx.number)
                try changes.forEach { streamed.append($0.changeID) }
            }
            #expect(streamed == plain && numbers == Array(Set(numbers)).sorted())
            var narrow = query
            narrow.after = .transaction(29_000)
            var few: [Int64] = []
            try store.forEachChange(narrow, decoder: decoder) { few.append($0.changeID) }
            #expect(few == plain.filter { $0 > 3 + 29_000 * 3 })
        }
        #expect(
            try store.countTransactions(HistoryQuery(objects: [ObjectReference(entityName: "Task", primaryKey: 5)]))
                >= 3)
        // Several objects at once, OR-ed, and counted transactions agree.
        let all = HistoryQuery(objects: objects.map { ObjectReference(entityName: $0.name, primaryKey: $0.key) })
        var changes = 0
        try store.forEachChange(all, decoder: decoder) { _ in changes += 1 }
        var transactions: Set<Int64> = []
        try store.forEachChange(all, decoder: decoder) { transactions.insert($0.transactionNumber) }
        #expect(try store.countTransactions(all) == transactions.count && changes >= 5)
    }
}

@Suite struct StoreWatcherTests {
    /// A commit writes its frames to the -wal, then counts itself in the WAL index header in -shm; a
    /// look between the two must still see a change later, when only the header has changed.
    @Test func theWALIndexHeaderIsPartOfTheFilesState() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Tasks.sqlite")
        try StoreWriter.write(Scenarios.all[0].store, to: path)
        let writer = try LiveWriter(path: path)
        defer { try? writer.close() }
        _ = try writer.commit(at: Scenarios.baseTime)
        let before = try #require(StoreFileState.read(path))
        #expect(before.walIndexHeader?.count == 48)
        // The header's change counter (bytes 8–11) moves on; -wal and main file are as they were.
        let shm = try #require(FileHandle(forUpdatingAtPath: path + "-shm"))
        try shm.seek(toOffset: 8)
        let counter = try #require(try shm.read(upToCount: 4))
        try shm.seek(toOffset: 8)
        try shm.write(contentsOf: Data(counter.map { $0 &+ 1 }))
        try shm.close()
        let after = try #require(StoreFileState.read(path))
        #expect(after.main == before.main && after.wal == before.wal && after != before)
    }

    @Test func readsWhatIsCommittedAndSeesAPurge() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Tasks.sqlite")
        try StoreWriter.write(Scenarios.all[0].store, to: path)
        let watcher = try StoreWatcher(path: path) { try $0.resolveModel() }
        #expect(watcher.position == 34)
        var seen: [String] = []
        func poll() throws {
            try watcher.poll { event in
                switch event {
                case .transaction(let tx, let changes):
                    var types: [String] = []
                    try changes.forEach { types.append($0.changeType.description) }
                    seen.append("#\(tx.number) \(types.joined(separator: ","))")
                case .purged(let first, let last, let count):
                    seen.append("purged \(first)-\(last) \(count.map(String.init) ?? "?")")
                case .checkpoint: seen.append("checkpoint")
                case .massDelete(let burst): seen.append("mass-delete \(burst.entity) \(burst.deleted)")
                }
                return true
            }
        }
        try poll()
        #expect(seen.isEmpty)
        let writer = try LiveWriter(path: path)
        _ = try writer.commit(at: Scenarios.baseTime + 100_000)
        _ = try writer.commit(at: Scenarios.baseTime + 100_001)
        try poll()
        #expect(seen == ["#35 insert,update,delete,delete", "#36 insert"])
        try poll()
        #expect(seen.count == 2)
        // A purge of 1–3 by another connection, while the writer keeps its own open.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= 3")
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= 3")
        }
        try queue.close()
        _ = try writer.commit(at: Scenarios.baseTime + 100_002)
        try poll()
        #expect(seen.suffix(2) == ["purged 1-3 3", "#37 insert,update"])
        try writer.close()
        // The writer's close checkpoints the WAL into the main file.
        try poll()
        #expect(seen.last == "checkpoint")
        // A store with fewer transactions than were read is another store.
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: WatchError.deleted(path: path)) { try poll() }
    }
}

/// `watch`'s use case: its limit and a stop request end it, each after the event in hand.
@Suite struct HistoryWatchTests {
    /// Stop requests the test makes itself, as Ctrl-C makes them on the command line.
    private final class Stops: StopRequests, Sendable {
        private let listener = Locked<(@Sendable (Int32) -> Void)?>(nil)
        func onRequest(_ body: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
            listener.set(body)
            return { [listener] in listener.set(nil) }
        }
        func request() { listener.current?(SIGINT) }
    }

    private func watch(_ path: String, limit: Int?, stops: Stops, stopAt: Int64? = nil) throws -> [String] {
        var seen: [String] = []
        try HistoryWatch.run(
            WatchRequest(
                path: path, options: OpenOptions(), filter: HistoryQuery(), since: .transaction(31), modelPath: nil,
                limit: limit, interval: 0.01),
            stops: stops, labeler: { _, _ in nil },
            started: { seen.append("started after #\($0.position)") },
            event: { event, _ in
                guard case .transaction(let tx, _) = event else { return }
                seen.append("#\(tx.number)")
                if tx.number == stopAt { stops.request() }
            })
        return seen
    }

    @Test(.timeLimit(.minutes(1))) func theLimitEndsTheWatch() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Tasks.sqlite")
        try StoreWriter.write(Scenarios.all[0].store, to: path)
        #expect(try watch(path, limit: 2, stops: Stops()) == ["started after #31", "#32", "#33"])
    }

    @Test(.timeLimit(.minutes(1))) func aStopRequestEndsTheWatchAfterTheEventInHand() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Tasks.sqlite")
        try StoreWriter.write(Scenarios.all[0].store, to: path)
        #expect(try watch(path, limit: nil, stops: Stops(), stopAt: 32) == ["started after #31", "#32"])
    }
}
