import Foundation
import GRDB
import TestSupport
import Testing

/// `purge --execute` and `repair-defaults --execute` killed (SIGKILL: no handler runs)
/// at points spread over a whole run, 30 runs each: the store or plist holds its old
/// content or its new content, never a mix, and once it holds the new content its
/// backup is complete under its final name.
@Suite(.tags(.slow)) struct KillTests {
    static let runs = 30

    /// What one killed run left.
    enum Outcome: String, CaseIterable { case old, new }

    /// Starts cdhist, kills it after `delay` seconds (or lets it finish before), and waits.
    private func killed(after delay: Double, _ arguments: [String]) throws -> Int32 {
        let running = try CLI.start(arguments)
        usleep(useconds_t(delay * 1_000_000))
        kill(running.pid, SIGKILL)
        return try running.wait().status
    }

    /// How long a run takes here (debug builds, sanitizers and a loaded machine differ a lot).
    private func duration(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    /// Delays that cover the whole run and a little more (a killed run starts a little slower
    /// than the one measured): run i of n is killed in the i-th n-th of 1.5 × `duration`.
    private func delays(spanning duration: Double) -> [Double] {
        (0..<Self.runs).map { i in (Double(i) + Double.random(in: 0..<1)) / Double(Self.runs) * duration * 1.5 }
    }

    /// Every table's rows, after SQLite has recovered whatever a killed writer left
    /// (a read-write connection rolls a hot journal back; uncommitted WAL frames are ignored).
    private func content(_ store: String) throws -> (rows: [String], integrity: String?) {
        let queue = try DatabaseQueue(path: store)
        let integrity = try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        try queue.close()
        return (try LogicalDump.of(store), integrity)
    }

    private func copyMergeState(into dir: TemporaryDirectory) throws {
        let folder = Repository.fixtures + "/MergeState"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: dir.file(name))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir.file(name))
        }
    }

    @Test func aKilledPurgeLeavesOldOrNewContentAndNeverLosesItsBackup() throws {
        let arguments = { (dir: TemporaryDirectory) in
            [
                "purge", dir.file("Tasks.sqlite"), "--before", "tx:20", "--execute", "--yes", "--vacuum", "--backup",
                dir.file("backup.sqlite"),
            ]
        }
        // The content before and after a purge that runs to its end.
        let reference = try TemporaryDirectory()
        try copyMergeState(into: reference)
        let old = try content(reference.file("Tasks.sqlite")).rows
        var status: Int32 = -1
        let seconds = try duration { status = try CLI.run(arguments(reference)).status }
        #expect(status == 0)
        let new = try content(reference.file("Tasks.sqlite")).rows
        #expect(new != old && new.count < old.count)

        var seen: [Outcome: Int] = [:]
        for delay in delays(spanning: seconds) {
            let dir = try TemporaryDirectory()
            try copyMergeState(into: dir)
            let status = try killed(after: delay, arguments(dir))
            let now = try content(dir.file("Tasks.sqlite"))
            let outcome: Outcome? = now.rows == old ? .old : now.rows == new ? .new : nil
            #expect(
                outcome != nil,
                "killed after \(delay) s (status \(status)): the store holds neither its old nor its new content")
            #expect(now.integrity == "ok", "killed after \(delay) s: integrity_check \(now.integrity ?? "nil")")
            if outcome == .new {
                #expect(
                    try content(dir.file("backup.sqlite")).rows == old,
                    "killed after \(delay) s: purged, but the backup is not the old store")
            } else if FileManager.default.fileExists(atPath: dir.file("backup.sqlite")) {
                #expect(
                    try content(dir.file("backup.sqlite")).rows == old,
                    "killed after \(delay) s: a backup under its final name is incomplete")
            }
            if let outcome { seen[outcome, default: 0] += 1 }
        }
        #expect(seen[.old, default: 0] > 0, "no run was killed before it changed the store")
        print(
            "killed purges (a run takes \(String(format: "%.2f", seconds)) s): "
                + Outcome.allCases.map { "\(seen[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))
    }

    @Test func aKilledRepairDefaultsLeavesTheOldOrNewPlistAndNeverLosesItsBackup() throws {
        let arguments = { (dir: TemporaryDirectory) in
            [
                "repair-defaults", dir.file("tokens.plist"), "--actor", "app", "--key-format", "phtk", "--to-oldest",
                "--store", dir.file("Tasks.sqlite"), "--execute", "--backup", dir.file("backup.plist"),
            ]
        }
        let reference = try TemporaryDirectory()
        try copyMergeState(into: reference)
        let old = try Data(contentsOf: URL(fileURLWithPath: reference.file("tokens.plist")))
        var status: Int32 = -1
        let seconds = try duration { status = try CLI.run(arguments(reference)).status }
        #expect(status == 0)
        let new = try Data(contentsOf: URL(fileURLWithPath: reference.file("tokens.plist")))
        #expect(new != old)

        var seen: [Outcome: Int] = [:]
        for delay in delays(spanning: seconds) {
            let dir = try TemporaryDirectory()
            try copyMergeState(into: dir)
            let status = try killed(after: delay, arguments(dir))
            let now = try Data(contentsOf: URL(fileURLWithPath: dir.file("tokens.plist")))
            let outcome: Outcome? = now == old ? .old : now == new ? .new : nil
            #expect(
                outcome != nil,
                "killed after \(delay) s (status \(status)): the plist is neither old nor new (\(now.count) bytes)")
            let backup = FileManager.default.contents(atPath: dir.file("backup.plist"))
            if outcome == .new {
                #expect(backup == old, "killed after \(delay) s: rewritten, but the backup is not the old plist")
            } else if let backup {
                #expect(backup == old, "killed after \(delay) s: a backup under its final name is incomplete")
            }
            if let outcome { seen[outcome, default: 0] += 1 }
        }
        #expect(seen[.old, default: 0] > 0, "no run was killed before it changed the plist")
        print(
            "killed repair-defaults (a run takes \(String(format: "%.2f", seconds)) s): "
                + Outcome.allCases.map { "\(seen[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))
    }
}
