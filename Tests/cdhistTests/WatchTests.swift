import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// `cdhist watch` beside a process committing to the store: the live writer
/// on a fixture and on copies of the real stores.
@Suite(.tags(.slow), .serialized) struct WatchTests {
    /// A copy of a store to write to (its -wal too; not its -shm, which belongs to the app that had it open).
    static func copy(_ store: String, into dir: TemporaryDirectory) throws -> String {
        let target = dir.file(URL(fileURLWithPath: store).lastPathComponent)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: target + suffix)
        }
        return target
    }

    /// The fixture and, when present, both real stores.
    static var stores: [String] {
        [Repository.fixtures + "/AppGroup/Tasks.sqlite"]
            + (RealStores.available ? [RealStores.photos, RealStores.swiftData] : [])
    }

    static func lastTransaction(_ store: String) throws -> Int {
        try CLI.run(["info", store]).json()["lastTransactionNumber"] as? Int ?? 0
    }

    static func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// Waits (at most 60 s) until `process` has written `count` lines for which `matches` holds.
    static func waitForLines(_ process: Subprocess.Running, count: Int, where matches: (String) -> Bool = { _ in true })
        -> Bool
    {
        for _ in 0..<600 {
            let lines = String(decoding: process.outputSoFar, as: UTF8.self).split(separator: "\n").map(String.init)
            if lines.filter(matches).count >= count { return true }
            if process.hasExited { return false }
            usleep(100_000)
        }
        return false
    }

    @Test(arguments: stores) func watchPrintsTheNewTransactionsAsExportDoes(store: String) throws {
        let dir = try TemporaryDirectory()
        let copy = try Self.copy(store, into: dir)
        let start = try Self.lastTransaction(copy)
        let count = 40
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        let watch = try CLI.start([
            "watch", copy, "--since", "tx:\(start)", "--limit", String(count), "--format", "ndjson",
        ])
        defer { watch.terminate() }
        // Small checkpoints, so the WAL is written back and restarted while watch reads.
        let writer = try CLI.run(
            [
                "live-writer", copy, "--transactions", String(count), "--interval-ms", "15", "--checkpoint-pages", "20",
                "--report", dir.file("writer.json"),
            ], executable: "cdhist-fixtures")
        #expect(writer.status == 0, "\(writer.stderr)")
        let watched = try CLI.result(watch.wait(timeout: 60))
        #expect(watched.status == 0, "\(watched.stderr)")
        // Only notes (a copy's -wal without its -shm, before the writer opened it) on stderr.
        #expect(
            watched.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("cdhist: note: ") }, "\(watched.stderr)")
        let transactions = watched.lines.filter { !$0.contains("\"event\":") }
        let exported = try CLI.run(["export", copy, "--after", "tx:\(start)", "--format", "ndjson"]).lines
        #expect(exported.count == count)
        // Exactly the lines export prints afterwards, in order.
        #expect(
            transactions == exported,
            "\(store): watch printed \(transactions.count) transactions, export \(exported.count)")
        let report = try JSONDecoder().decode(
            LiveWriter.Report.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("writer.json"))))
        #expect(
            report.maxLockWaitMilliseconds < 100, "the writer waited \(report.maxLockWaitMilliseconds) ms for a lock")
        // watch created nothing beside the store: the files are those of before, the writer's report,
        // and the -shm and -wal the writer's connection made when the copy had none (SQLite keeps the
        // -shm, and the -wal too when a reader is still open as the writer closes; watch opens read-only).
        let name = URL(fileURLWithPath: copy).lastPathComponent
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(
            after.subtracting(before).subtracting(["writer.json", name + "-shm", name + "-wal"]).isEmpty,
            "\(after.subtracting(before))")
    }

    @Test(arguments: stores) func aPurgeAndACheckpointAreReportedAndWatchGoesOn(store: String) throws {
        let dir = try TemporaryDirectory()
        let copy = try Self.copy(store, into: dir)
        let start = try Self.lastTransaction(copy)
        let first = try #require(try CLI.run(["info", copy]).json()["firstTransactionNumber"] as? Int)
        let watch = try CLI.start(["watch", copy, "--since", "tx:\(start)", "--limit", "20", "--format", "ndjson"])
        defer { watch.terminate() }
        func write(_ n: Int) throws {
            let r = try CLI.run(
                ["live-writer", copy, "--transactions", String(n), "--interval-ms", "10"], executable: "cdhist-fixtures"
            )
            #expect(r.status == 0, "\(r.stderr)")
        }
        try write(10)
        #expect(Self.waitForLines(watch, count: 10) { $0.contains("\"transactionNumber\"") })
        // Another process purges the five oldest transactions, then checkpoints with the WAL truncated.
        let queue = try DatabaseQueue(path: copy)
        let purged = try queue.write { db -> Int in
            try db.execute(
                sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION ORDER BY Z_PK LIMIT 5)"
            )
            try db.execute(
                sql: "DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT Z_PK FROM ATRANSACTION ORDER BY Z_PK LIMIT 5)")
            return db.changesCount
        }
        #expect(purged == 5)
        _ = try queue.writeWithoutTransaction { try Row.fetchAll($0, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        #expect(Self.waitForLines(watch, count: 1) { $0.contains("\"event\":\"purged\"") })
        try write(10)
        let watched = try CLI.result(watch.wait(timeout: 60))
        #expect(watched.status == 0, "\(watched.stderr)")
        let lines = watched.lines
        let transactions = lines.filter { $0.contains("\"transactionNumber\"") }
        #expect(transactions == (try CLI.run(["export", copy, "--after", "tx:\(start)", "--format", "ndjson"]).lines))
        let events = try Self.objects(lines.filter { $0.contains("\"event\":") })
        let purge = try #require(events.first { $0["event"] as? String == "purged" })
        #expect(purge["firstTransaction"] as? Int == first && purge["transactions"] as? Int == 5, "\(purge)")
        #expect(purge["lastTransaction"] as? Int ?? 0 >= first + 4)
        #expect(events.contains { $0["event"] as? String == "checkpoint" }, "no checkpoint reported: \(events)")
        // The purge is reported between the first ten transactions and the next ten.
        let purgeLine = try #require(lines.firstIndex { $0.contains("\"event\":\"purged\"") })
        #expect(lines[..<purgeLine].filter { $0.contains("\"transactionNumber\"") }.count == 10)
        if SchemaValidator.available {
            try watched.stdout.write(toFile: dir.file("watch.ndjson"), atomically: true, encoding: .utf8)
            let r = try SchemaValidator.validate([dir.file("watch.ndjson")])
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        }
    }

    @Test func watchStartsAfterTheNewestTransactionAndFiltersAsChangesDoes() throws {
        let dir = try TemporaryDirectory()
        let copy = try Self.copy(Repository.fixtures + "/AppGroup/Tasks.sqlite", into: dir)
        // Only deletes, labelled from their tombstones; a table fitted to 80 columns.
        let watch = try CLI.start(
            ["watch", copy, "--type", "delete", "--labels", "--limit", "3", "--format", "table", "--utc"],
            environment: ["COLUMNS": "80"])
        defer { watch.terminate() }
        // Nothing of the 34 transactions already there is printed; give watch a moment to start.
        usleep(1_500_000)
        #expect(watch.outputSoFar.isEmpty)
        let writer = try CLI.run(
            ["live-writer", copy, "--transactions", "12", "--interval-ms", "5"], executable: "cdhist-fixtures")
        #expect(writer.status == 0)
        let watched = try CLI.result(watch.wait(timeout: 60))
        #expect(watched.status == 0, "\(watched.stderr)")
        // The writer deletes in every transaction whose number is 2 or 3 modulo 4 (with its title in the tombstone).
        let expected = try CLI.run(["changes", copy, "--after", "tx:34", "--type", "delete", "--format", "ndjson"])
            .lines
        let headers = watched.lines.filter { $0.hasPrefix("#") }
        #expect(headers.count == 3)
        let deletes = watched.lines.filter { $0.hasPrefix("    delete  Task/p") }
        let firstThree = try Self.objects(expected).filter {
            ($0["transactionNumber"] as? Int ?? 0) <= Int(headers[2].dropFirst().prefix { $0.isNumber }) ?? 0
        }
        #expect(deletes.count == firstThree.count)
        for (line, change) in zip(deletes, firstThree) {
            let key = change["entityPK"] as? Int ?? -1
            #expect(line.hasPrefix("    delete  Task/p\(key) 'Task \(key)'  title=\"Task \(key)\""), "\(line)")
        }
        #expect(watched.lines.allSatisfy { $0.count <= 80 }, "\(watched.stdout)")
    }

    @Test func watchBlockedOnItsOutputLetsTheAppCheckpoint() throws {
        let dir = try TemporaryDirectory()
        let copy = try Self.copy(Repository.fixtures + "/AppGroup/Tasks.sqlite", into: dir)
        let start = try Self.lastTransaction(copy)
        let count = 400
        // watch writes into a pipe its reader leaves full until the gate file appears.
        let gate = dir.file("gate")
        let reader = "while [ ! -e '\(gate)' ]; do sleep 0.1; done; cat > '\(dir.file("watched.ndjson"))'"
        let pipeline = try CLI.start(
            [
                "-c",
                """
                '\(CLI.products.path)/cdhist' watch '\(copy)' --since tx:\(start) --limit \(count) --format \
                ndjson | { \(reader); }
                """,
            ],
            executable: "/bin/sh")
        defer { pipeline.terminate() }
        let writer = try CLI.run(
            ["live-writer", copy, "--transactions", String(count), "--interval-ms", "1"], executable: "cdhist-fixtures")
        #expect(writer.status == 0, "\(writer.stderr)")
        let exported = try CLI.run(["export", copy, "--after", "tx:\(start)", "--format", "ndjson"])
        // Far more than a pipe holds (64 KiB on Linux, 16 KiB on macOS): watch is blocked writing.
        try #require(
            exported.stdout.utf8.count > 4 * 65_536, "only \(exported.stdout.utf8.count) bytes: watch would not block")
        usleep(1_500_000)
        // The app checkpoints as Core Data does on its last close, with a 3 s busy timeout.
        var config = Configuration()
        config.busyMode = .timeout(3)
        let queue = try DatabaseQueue(path: copy, configuration: config)
        let result = try queue.writeWithoutTransaction { try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        #expect(result?[0] as Int? == 0, "the checkpoint was busy: \(String(describing: result))")
        let wal = try FileManager.default.attributesOfItem(atPath: copy + "-wal")[.size] as? Int
        #expect(wal == 0, "the -wal holds \(wal ?? -1) bytes after the checkpoint")
        // Once read, watch goes on and prints every transaction, as export does.
        FileManager.default.createFile(atPath: gate, contents: nil)
        let r = try CLI.result(pipeline.wait(timeout: 120))
        #expect(r.status == 0, "\(r.stderr)")
        let watched = try String(contentsOfFile: dir.file("watched.ndjson"), encoding: .utf8).split(separator: "\n")
            .map(String.init)
        #expect(watched.filter { !$0.contains("\"event\":") } == exported.lines)
    }

    @Test func ctrlCEndsWatchWithStatusZeroAndACompleteDocument() throws {
        let dir = try TemporaryDirectory()
        let copy = try Self.copy(Repository.fixtures + "/AppGroup/Tasks.sqlite", into: dir)
        let watch = try CLI.start(["watch", copy, "--since", "tx:32", "--format", "json"])
        defer { watch.terminate() }
        #expect(Self.waitForLines(watch, count: 1) { $0.contains("\"transactionNumber\":34") })
        watch.interrupt()
        let r = try CLI.result(watch.wait(timeout: 30))
        #expect(r.status == 0, "\(r.stderr)")
        let document = try r.json()
        #expect(document["kind"] as? String == "transactions")
        #expect(
            (document["transactions"] as? [[String: Any]])?.compactMap { $0["transactionNumber"] as? Int } == [33, 34])
    }

    @Test func aDeletedOrReplacedStoreEndsWatchWithStatusTwo() throws {
        for replace in [false, true] {
            let dir = try TemporaryDirectory()
            let copy = try Self.copy(Repository.fixtures + "/AppGroup/Tasks.sqlite", into: dir)
            let watch = try CLI.start(["watch", copy, "--interval", "20"])
            defer { watch.terminate() }
            usleep(1_000_000)
            if replace {
                try FileManager.default.copyItem(
                    atPath: Repository.fixtures + "/Later/Tasks.sqlite", toPath: dir.file("other.sqlite"))
                #expect(rename(dir.file("other.sqlite"), copy) == 0)
            } else {
                try FileManager.default.removeItem(atPath: copy)
            }
            let r = try CLI.result(watch.wait(timeout: 30))
            #expect(r.status == 2)
            #expect(
                r.stderr
                    == (replace
                        ? """
                        cdhist: \(copy): the store was replaced (another file took its place); watch it again to \
                        follow the new one\n
                        """
                        : "cdhist: \(copy): the store was deleted\n"),
                "\(r.stderr)")
        }
    }

    @Test func watchFollowsOneObject() throws {
        let dir = try TemporaryDirectory()
        let copy = try Self.copy(Repository.fixtures + "/AppGroup/Tasks.sqlite", into: dir)
        // The writer inserts Task 27 in #36 and deletes it in #38 and again in #39 (see LiveWriter.commit).
        let watch = try CLI.start([
            "watch", copy, "--since", "tx:34", "--object", "Task/p27", "--limit", "3", "--format", "ndjson",
        ])
        defer { watch.terminate() }
        let writer = try CLI.run(
            ["live-writer", copy, "--transactions", "6", "--interval-ms", "5"], executable: "cdhist-fixtures")
        #expect(writer.status == 0)
        let r = try CLI.result(watch.wait(timeout: 60))
        #expect(r.status == 0, "\(r.stderr)")
        // The writer's first open may checkpoint the fixture's WAL: watch reports that as an event line.
        let watched = r.lines.filter { !$0.contains("\"event\":") }
        let exported = try CLI.run(["export", copy, "--object", "Task/p27", "--format", "ndjson"]).lines
        #expect(
            watched == exported,
            "watch:\n\(r.lines.joined(separator: "\n"))\nexport:\n\(exported.joined(separator: "\n"))\n\(r.stderr)")
        let transactions = try Self.objects(watched)
        #expect(transactions.compactMap { $0["transactionNumber"] as? Int } == [36, 38, 39])
        let changes = transactions.flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        #expect(
            changes.allSatisfy { $0["changedObjectID"] as? String == "x-coredata://\(Scenarios.appGroupUUID)/Task/p27" }
        )
        #expect(changes.compactMap { $0["changeType"] as? String } == ["insert", "delete", "delete"])
    }
}
