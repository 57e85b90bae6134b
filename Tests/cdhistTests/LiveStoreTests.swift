import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// cdhist against a store an app is writing: a `cdhist-fixtures live-writer`
/// process commits transactions (WAL, one SQLite transaction per save, as
/// Core Data does) while `info`, `export` and `actors` run in a loop.
@Suite(.tags(.slow)) struct LiveStoreTests {
    /// Changes of transaction `number`: the App Group history's own, then the writer's.
    private static let fixtureHistory = Scenarios.appGroupHistory()
    private static func expectedChanges(_ number: Int) -> Int {
        number <= fixtureHistory.count
            ? fixtureHistory[number - 1].changes.count : LiveWriter.changeCount(ofTransaction: Int64(number))
    }

    private static func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// One export snapshot is a committed state: transactions 1…N without a
    /// gap, each with all its changes and no other, change IDs 1…M in order.
    private static func checkSnapshot(_ export: [[String: Any]]) -> (transactions: Int, changes: Int) {
        var changeID = 0
        for (index, tx) in export.enumerated() {
            let number = tx["transactionNumber"] as? Int ?? -1
            #expect(number == index + 1, "transaction \(index + 1) missing: found \(number)")
            let changes = tx["changes"] as? [[String: Any]] ?? []
            #expect(
                changes.count == expectedChanges(number) && tx["changeCount"] as? Int == changes.count,
                """
                transaction \(number) has \(changes.count) of its \(expectedChanges(number)) changes (changeCount \
                \(tx["changeCount"] ?? "nil"))
                """
            )
            for change in changes {
                changeID += 1
                #expect(
                    change["changeID"] as? Int == changeID && change["transactionNumber"] as? Int == number,
                    "change \(changeID) of \(number)")
            }
        }
        return (export.count, changeID)
    }

    /// The notes cdhist prints when it reads a private copy of a store whose WAL has no index.
    private static func isSnapshotNote(_ line: Substring) -> Bool {
        line.hasPrefix("cdhist: note: ")
            && ((line.contains("-wal is present without ") && line.hasSuffix("-shm"))
                || line.contains(": read from a private snapshot copy in a temporary directory ("))
    }

    @Test func readingWhileAnAppCommits() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Tasks.sqlite")
        try StoreWriter.write(Scenarios.all[0].store, to: store)
        let defaults = Repository.fixtures + "/MergeState/phtk.plist"
        let report = dir.file("writer.json")
        let transactions = 1500
        let writer = try CLI.start(
            [
                "live-writer", store, "--transactions", String(transactions), "--interval-ms", "4",
                "--checkpoint-pages", "50", "--report", report,
            ], executable: "cdhist-fixtures")
        defer { writer.terminate() }

        var iterations = 0
        var seen = (transactions: 0, changes: 0)
        var failures: [String] = []
        while !writer.hasExited {
            iterations += 1
            let info = try CLI.run(["info", store])
            let export = try CLI.run(["export", store])
            let actors = try CLI.run(["actors", store, "--defaults", defaults, "--actor", "app", "--actor", "widget"])
            // Once the report exists the app is closing the store: SQLite removes
            // -shm, then -wal, and a reader in between reads a private copy and says so.
            let closing = FileManager.default.fileExists(atPath: report)
            for (name, r) in [("info", info), ("export", export), ("actors", actors)] {
                let unexpected = r.stderr.split(separator: "\n").filter { !(closing && Self.isSnapshotNote($0)) }
                if r.status != 0 || !unexpected.isEmpty {
                    failures.append("\(name) #\(iterations): status \(r.status): \(r.stderr)")
                }
            }
            guard export.status == 0, info.status == 0, actors.status == 0 else { continue }
            // info reads one snapshot: its counts agree with each other.
            let stats = try info.json()
            let count = stats["transactionCount"] as? Int ?? -1
            #expect(stats["lastTransactionNumber"] as? Int == count, "info #\(iterations)")
            #expect(
                stats["changeCount"] as? Int == (1...max(1, count)).reduce(0) { $0 + Self.expectedChanges($1) },
                "info #\(iterations): \(count) transactions")
            #expect(stats["orphanChangeCount"] as? Int == 0)
            // export reads one snapshot that only grows.
            let snapshot = Self.checkSnapshot(try Self.lines(export.stdout))
            #expect(snapshot.transactions >= seen.transactions && snapshot.transactions >= Self.fixtureHistory.count)
            seen = snapshot
            let merge = try actors.json()
            #expect(merge["storeID"] as? String == Scenarios.appGroupUUID)
            // The plist's three actors (app, widget, shareExtension).
            #expect(
                (merge["actors"] as? [[String: Any]])?.compactMap { $0["actor"] as? String }.sorted() == [
                    "app", "shareExtension", "widget",
                ])
        }
        #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
        let ended = try CLI.result(writer.wait())
        #expect(ended.status == 0, "\(ended.stderr)")
        let result = try JSONDecoder().decode(
            LiveWriter.Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        print(
            """
            live store: \(iterations) rounds of info, export and actors while the writer committed \
            \(result.transactions) transactions 
            """
                + """
                (\(result.changes) changes) in \(String(format: "%.1f", result.seconds)) s; longest lock wait \
                \(String(format: "%.3f", result.maxLockWaitMilliseconds)) ms 
                """
                    + """
                    (\(result.commitsThatWaited) commits waited), longest commit \
                    \(String(format: "%.1f", result.maxCommitMilliseconds)) ms; the last export saw \
                    \(seen.transactions) transactions
                    """
        )
        #expect(result.transactions == transactions)
        #expect(result.lastTransaction == Int64(Self.fixtureHistory.count + transactions))
        // cdhist never held a lock the app had to wait for long.
        #expect(
            result.maxLockWaitMilliseconds < 100, "the writer waited \(result.maxLockWaitMilliseconds) ms for a lock")
        // Several rounds, even in a ThreadSanitizer build (where 4 ran: every process is slower).
        #expect(iterations >= 3, "only \(iterations) rounds ran while the writer wrote")

        // When the app has stopped, cdhist's export is exactly what was committed, and reading changes nothing.
        let before = try DirectoryState(dir.path)
        let final = try Self.lines(try CLI.run(["export", store]).stdout)
        let totals = Self.checkSnapshot(final)
        #expect(totals.transactions == Self.fixtureHistory.count + transactions)
        #expect(totals.changes == result.changes + Self.fixtureHistory.reduce(0) { $0 + $1.changes.count })
        let committed = try Self.committedState(store)
        #expect(final.count == committed.count)
        for (tx, row) in zip(final, committed) {
            let changes = (tx["changes"] as? [[String: Any]] ?? []).map {
                "\($0["changeID"] ?? ""):\($0["changeType"] ?? ""):\($0["entityPK"] ?? "")"
            }
            let exported =
                """
                \(tx["transactionNumber"] ?? "") \(tx["author"] ?? "") \
                \((tx["cocoaTimestamp"] as? NSNumber)?.doubleValue ?? -1) \(changes)
                """
            #expect(exported == row, "\(exported) ≠ \(row)")
        }
        _ = try CLI.run(["info", store])
        _ = try CLI.run(["actors", store, "--defaults", defaults])
        #expect(try DirectoryState(dir.path) == before)
    }

    /// The state a checkpoint passes through: page 1, with the new page count,
    /// is in the main file before the pages that extend it. cdhist used to call
    /// such a live store truncated (seen once in 240,972 reads beside the writer);
    /// here the state is made on purpose from a store whose WAL grows it.
    @Test func aStoreInTheMiddleOfACheckpointIsRead() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Tasks.sqlite")
        let fixture = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .wal(keepInWAL: 60),
            transactions: (0..<80).map { Scenarios.benchmarkTransaction($0, changesPerTransaction: 10) })
        try StoreWriter.write(fixture, to: store)
        let expected = try CLI.run(["export", store])
        #expect(expected.status == 0 && expected.lines.count == 80)

        // The newest image of page 1 in the WAL (frames: 24-byte header, then the page).
        let wal = try Data(contentsOf: URL(fileURLWithPath: store + "-wal"))
        let main = try Data(contentsOf: URL(fileURLWithPath: store))
        let pageSize = Int(wal[8]) << 24 | Int(wal[9]) << 16 | Int(wal[10]) << 8 | Int(wal[11])
        var page1: Data?
        var offset = 32
        while offset + 24 + pageSize <= wal.count {
            if wal[offset..<offset + 4] == Data([0, 0, 0, 1]) {
                page1 = Data(wal[offset + 24..<offset + 24 + pageSize])
            }
            offset += 24 + pageSize
        }
        let newest = try #require(page1)
        let declared = Int(newest[28]) << 24 | Int(newest[29]) << 16 | Int(newest[30]) << 8 | Int(newest[31])
        #expect(
            declared * pageSize > main.count,
            "the WAL does not grow the store: \(declared) pages, file \(main.count) bytes")
        var midCheckpoint = main
        midCheckpoint.replaceSubrange(0..<pageSize, with: newest)
        try midCheckpoint.write(to: URL(fileURLWithPath: store))

        let read = try CLI.run(["export", store])
        #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
        #expect(read.stdout == expected.stdout)
        #expect(try CLI.run(["info", store]).status == 0)
    }

    /// The writer's lock-wait measure sees a lock held by another process (so the
    /// live test's bound of 100 ms can fail), and sees none without one.
    @Test(.enabled(if: LockHolder.available)) func theWriterMeasuresLockWaits() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Tasks.sqlite")
        try StoreWriter.write(Scenarios.all[0].store, to: store)
        let writer = try LiveWriter(path: store)
        defer { try? writer.close() }
        let free = try writer.commit(at: Scenarios.baseTime)
        #expect(free.lockWait == 0 && free.number == 35)

        let holder = try LockHolder(path: store, statement: "BEGIN IMMEDIATE")
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var blocked: Result<(number: Int64, lockWait: Double, duration: Double), Error>?
        DispatchQueue.global().async {
            started.signal()
            blocked = Result { try writer.commit(at: Scenarios.baseTime + 1) }
            done.signal()
        }
        // The lock is released 300 ms after the commit began (other tests may slow both threads).
        started.wait()
        usleep(300_000)
        holder.release()
        done.wait()
        let waited = try #require(try blocked?.get())
        #expect(waited.number == 36)
        #expect(waited.lockWait > 0.15 && waited.lockWait < 10, "measured \(waited.lockWait) s")
        #expect(waited.duration >= waited.lockWait)
    }

    /// The committed transactions read straight from SQLite, as the export should show them.
    private static func committedState(_ path: String) throws -> [String] {
        // The WAL may outlive the writer (a reader had the store open when it closed): read it too.
        let queue = try LogicalDump.readOnlyQueue(path)
        defer { try? queue.close() }
        return try queue.read { db in
            var changes: [Int64: [String]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT Z_PK, ZTRANSACTIONID, ZCHANGETYPE, ZENTITYPK FROM ACHANGE ORDER BY Z_PK")
            {
                let type = ["insert", "update", "delete"][Int(row[2] as Int64)]
                changes[row[1], default: []].append("\(row[0] as Int64):\(type):\(row[3] as Int64)")
            }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT t.Z_PK, s.ZNAME, t.ZTIMESTAMP FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING s ON s.Z_PK \
                    = t.ZAUTHORTS ORDER BY t.Z_PK
                    """
            ).map { row in
                let number: Int64 = row[0]
                return "\(number) \((row[1] as String?) ?? "<null>") \(row[2] as Double) \(changes[number] ?? [])"
            }
        }
    }
}
