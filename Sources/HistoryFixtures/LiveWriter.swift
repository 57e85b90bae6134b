import Foundation
import GRDB
import HistoryKit

/// Commits transactions to a store as a running app does through Core Data:
/// WAL mode, a busy handler, and each save in one SQLite transaction that
/// adds its `ATRANSACTION` row, its `ACHANGE` rows, any new
/// `ATRANSACTIONSTRING` names and the `Z_PRIMARYKEY` high-water marks.
/// It measures how long each commit waited for a lock (time spent in
/// SQLite's busy handler, which runs only while another connection holds a
/// lock this one needs) and how long each commit took.
public final class LiveWriter {
    /// What a run did and how long it waited.
    public struct Report: Codable, Equatable, Sendable {
        public var transactions: Int
        public var changes: Int
        public var firstTransaction: Int64
        public var lastTransaction: Int64
        /// The longest time one commit waited for a lock, in milliseconds.
        public var maxLockWaitMilliseconds: Double
        /// Commits that waited for a lock at all.
        public var commitsThatWaited: Int
        /// The longest commit from `BEGIN IMMEDIATE` to `COMMIT`, in milliseconds.
        public var maxCommitMilliseconds: Double
        public var seconds: Double
    }

    /// The number of changes of transaction `number`: 1, 2, 3, 4 in turn,
    /// so a reader can tell a transaction that is only partly there.
    public static func changeCount(ofTransaction number: Int64) -> Int { 1 + Int(number % 4) }

    /// Authors the writer rotates through, as an app, its widget and its share extension.
    public static let authors = ["app", "widget", "shareExtension"]

    /// Time spent in the busy handler since the last ``reset()``; the handler
    /// runs on the connection's queue, the writer reads it after each commit.
    private final class BusyClock: @unchecked Sendable {
        private let lock = NSLock()
        private var firstCall: UInt64?

        func called(retries: Int) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            let now = DispatchTime.now().uptimeNanoseconds
            if firstCall == nil { firstCall = now }
            // Give up after 10 s, as an app's busy timeout would.
            guard now - (firstCall ?? now) < 10_000_000_000 else { return false }
            usleep(retries < 10 ? 100 : 1000)
            return true
        }

        /// Seconds waited since the last call, and starts again.
        func reset() -> Double {
            lock.lock()
            defer { lock.unlock() }
            let waited = firstCall.map { Double(DispatchTime.now().uptimeNanoseconds - $0) / 1e9 } ?? 0
            firstCall = nil
            return waited
        }
    }

    private let queue: DatabaseQueue
    private let clock = BusyClock()
    private let taskEntity: Int64
    private let doneColumns: Data
    private var nextPK: Int64 = 0

    /// Opens the existing WAL store at `path` (written by ``StoreWriter`` with
    /// the Tasks model); SQLite checkpoints every `checkpointPages` WAL pages.
    public init(path: String, checkpointPages: Int = 1000) throws {
        var config = Configuration()
        let clock = self.clock
        config.busyMode = .callback { clock.called(retries: $0) }
        queue = try DatabaseQueue(path: path, configuration: config)
        let mode = try queue.writeWithoutTransaction { db -> String in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(checkpointPages)")
            return try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
        }
        guard mode.lowercased() == "wal" else {
            throw CocoaError(.fileReadUnsupportedScheme, userInfo: [NSLocalizedDescriptionKey: "\(path): not a WAL store (journal_mode \(mode))"])
        }
        guard let task = try queue.read({ try Int64.fetchOne($0, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Task'") }),
              let layout = SlotLayout(entity: "Task", model: Scenarios.tasksModel),
              let done = layout.slots.first(where: { $0.propertyName == "done" }) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(path): not a store of the Tasks model"])
        }
        taskEntity = task
        var columns = [UInt8](repeating: 0, count: layout.byteLength)
        columns[done.index >> 3] |= 0x80 >> UInt8(done.index & 7)
        doneColumns = Data(columns)
        nextPK = try queue.read { try Int64.fetchOne($0, sql: "SELECT COALESCE(MAX(ZENTITYPK), 0) FROM ACHANGE WHERE ZENTITY = ?", arguments: [task]) } ?? 0
    }

    /// Commits one transaction; returns its number, the seconds it waited
    /// for a lock and the seconds the whole commit took.
    public func commit(at timestamp: Double) throws -> (number: Int64, lockWait: Double, duration: Double) {
        _ = clock.reset()
        let start = DispatchTime.now().uptimeNanoseconds
        let number: Int64 = try queue.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            do {
                let number = (try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(Z_PK), 0) + 1 FROM ATRANSACTION") ?? 1)
                let author = try stringID(Self.authors[Int(number % Int64(Self.authors.count))], db)
                let context = try stringID("viewContext", db)
                try db.execute(sql: """
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZCONTEXTNAMETS, ZTIMESTAMP) VALUES (?, 16002, NULL, ?, ?, ?)
                    """, arguments: [number, author, context, timestamp])
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0)
                    VALUES (16001, NULL, ?, ?, ?, ?, ?, ?)
                    """)
                for i in 0..<Self.changeCount(ofTransaction: number) {
                    // Insert a task, then mark it done, then (every third) delete it with its title preserved.
                    switch i {
                    case 0:
                        nextPK += 1
                        try insert.execute(arguments: [ChangeType.insert.rawValue, taskEntity, nextPK, number, nil, nil])
                    case 1:
                        try insert.execute(arguments: [ChangeType.update.rawValue, taskEntity, nextPK, number, doneColumns, nil])
                    default:
                        try insert.execute(arguments: [ChangeType.delete.rawValue, taskEntity, nextPK - Int64(i), number, nil, "Task \(nextPK - Int64(i))"])
                    }
                }
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'TRANSACTION'", arguments: [number])
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ACHANGE) WHERE Z_NAME = 'CHANGE'")
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_NAME = 'Task'", arguments: [nextPK])
                try db.execute(sql: "COMMIT")
                return number
            } catch {
                try? db.execute(sql: "ROLLBACK")
                throw error
            }
        }
        let duration = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (number, clock.reset(), duration)
    }

    /// Commits `transactions` transactions, one every `interval` seconds
    /// (timestamps one second apart after `startTime`, Cocoa seconds).
    public func run(transactions: Int, interval: Double, startTime: Double) throws -> Report {
        var report = Report(transactions: 0, changes: 0, firstTransaction: 0, lastTransaction: 0, maxLockWaitMilliseconds: 0,
                            commitsThatWaited: 0, maxCommitMilliseconds: 0, seconds: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<transactions {
            let result = try commit(at: startTime + Double(i))
            if report.transactions == 0 { report.firstTransaction = result.number }
            report.lastTransaction = result.number
            report.transactions += 1
            report.changes += Self.changeCount(ofTransaction: result.number)
            report.maxLockWaitMilliseconds = max(report.maxLockWaitMilliseconds, result.lockWait * 1000)
            if result.lockWait > 0 { report.commitsThatWaited += 1 }
            report.maxCommitMilliseconds = max(report.maxCommitMilliseconds, result.duration * 1000)
            if interval > 0 { usleep(useconds_t(interval * 1e6)) }
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return report
    }

    /// Closes the connection (SQLite checkpoints and removes the WAL when it is the last one).
    public func close() throws { try queue.close() }

    private func stringID(_ name: String, _ db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?"), arguments: [name]) { return id }
        try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_ENT, Z_OPT, ZNAME) VALUES (16003, NULL, ?)", arguments: [name])
        let id = db.lastInsertedRowID
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'TRANSACTIONSTRING'", arguments: [id])
        return id
    }
}
