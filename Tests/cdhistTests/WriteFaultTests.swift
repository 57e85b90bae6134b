import Foundation
import TestSupport
import HistoryKit
import Testing

/// Writing commands under a file-size limit (`ulimit -f`: what a nearly full disk
/// looks like to a process): one line on stderr naming the file and the cause,
/// status 2, and the folder exactly as it was, byte for byte.
@Suite struct WriteFaultTests {
    /// Runs cdhist with RLIMIT_FSIZE at `blocks` × 1024 bytes (its stdout and stderr, files of the
    /// test harness, must fit too).
    private func run(limit blocks: Int, _ arguments: [String]) throws -> CLI.Result {
        let cdhist = CLI.products.appendingPathComponent("cdhist").path
        return try CLI.run(["-c", "ulimit -f \(blocks) && exec \"$0\" \"$@\"", cdhist] + arguments, executable: "/bin/sh")
    }

    /// Every file of `dir` with its bytes.
    private func contents(_ dir: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            files[name] = FileManager.default.contents(atPath: dir.file(name))
        }
        return files
    }

    private func copyStore(_ store: String, into dir: TemporaryDirectory) throws -> String {
        let target = dir.file(URL(fileURLWithPath: store).lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: target + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target + suffix)
        }
        return target
    }

    static var stores: [String] {
        [Repository.fixtures + "/MergeState/Tasks.sqlite"] + (RealStores.available ? [RealStores.photos] : [])
    }

    /// Limits that stop the opening (no room for -shm), the backup, and the delete (no backup).
    @Test(arguments: stores) func purgeUnderAFileSizeLimitLeavesTheFolderAsItWas(store: String) throws {
        let cases: [(blocks: Int, extra: [String], message: String)] = [
            (16, [], "; nothing was"),
            (64, [], "; nothing was"),
            (16, ["--no-backup"], "; nothing was deleted"),
        ]
        for c in cases {
            let dir = try TemporaryDirectory()
            let copy = try copyStore(store, into: dir)
            let before = try contents(dir)
            let r = try run(limit: c.blocks, ["purge", copy, "--before", "tx:20", "--execute", "--allow-expire", "--format", "json"] + c.extra)
            #expect(r.status == 2, "\(store) \(c): \(r.status) \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("cdhist: \(copy): ") && lines[0].contains(c.message)
                    && lines[0].contains("limit"), "\(c.blocks) \(c.extra): \(r.stderr)")
            // The same files; the same bytes but in -shm, SQLite's shared memory index (the first
            // connection to a copied store rebuilds it: it is the same index, not always the same bytes).
            let after = try contents(dir)
            #expect(after.keys.sorted() == before.keys.sorted(), "\(store) \(c): \(after.keys.sorted())")
            #expect(after.filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") }, "\(store) \(c): a file changed")
        }
    }

    @Test func repairDefaultsUnderAFileSizeLimitLeavesThePlistAsItWas() throws {
        for blocks in [1] {
            let dir = try TemporaryDirectory()
            let plist = dir.file("defaults.plist")
            try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/tokens.plist", toPath: plist)
            let before = try contents(dir)
            let r = try run(limit: blocks, ["repair-defaults", plist, "--actor", "app", "--key-format", "phtk", "--to-oldest",
                                            "--store", Repository.fixtures + "/MergeState/Tasks.sqlite", "--execute"])
            #expect(r.status == 2 && r.stderr.hasPrefix("cdhist: \(plist): backup failed (writing \(plist).cdhist-backup-")
                    && r.stderr.contains("a file-size limit (ulimit -f) was reached"), "\(blocks): \(r.stderr)")
            #expect(try contents(dir) == before)
        }
    }

    @Test func exportAndReportUnderAFileSizeLimitLeaveNoFile() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        for command in [["export", store, "--out"], ["report", store, "--out"]] {
            let dir = try TemporaryDirectory()
            let out = dir.file(command[0] == "export" ? "history.ndjson" : "report.html")
            let r = try run(limit: 4, command + [out])
            #expect(r.status == 2 && r.stderr.hasPrefix("cdhist: \(out): ") && r.stderr.split(separator: "\n").count == 1, "\(command[0]): \(r.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "\(command[0]) left a file")
        }
    }
}
