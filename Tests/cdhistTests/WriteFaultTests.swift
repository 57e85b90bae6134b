import Foundation
import HistoryKit
import TestSupport
import Testing

/// Writing commands under a file-size limit (`ulimit -f`: what a nearly full disk
/// looks like to a process): one line on stderr naming the file and the cause,
/// status 2, and the folder exactly as it was, byte for byte.
@Suite(.tags(.slow)) struct WriteFaultTests {
    /// Runs cdhist with RLIMIT_FSIZE at `kib` KiB (bash's `ulimit -f` counts 1024-byte blocks;
    /// dash's, /bin/sh on Debian, 512). Its stdout and stderr, files of the test harness, must fit too.
    private func run(limitKiB kib: Int, _ arguments: [String]) throws -> CLI.Result {
        let cdhist = CLI.products.appendingPathComponent("cdhist").path
        return try CLI.run(
            ["-c", "ulimit -f \(kib) && exec \"$0\" \"$@\"", cdhist] + arguments, executable: "/bin/bash")
    }

    /// Whether a process can start under a small file-size limit: ThreadSanitizer's runtime
    /// cannot (it dies of SIGBUS before main, `cdhist --version` too), so under scripts/sanitize
    /// thread the file-size-limit tests say so and are skipped; AddressSanitizer's can.
    static let fileSizeLimitsCanBeTried: Bool = {
        guard ProcessInfo.processInfo.environment["CDHIST_SANITIZER"] == "thread" else { return true }
        print(
            """
            NOTICE: built with ThreadSanitizer, whose runtime cannot start under a file-size limit; the ulimit -f \
            tests are skipped
            """
        )
        return false
    }()

    /// Every file of `dir` with its bytes.
    private func contents(_ dir: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            files[name] = FileManager.default.contents(atPath: dir + "/" + name)
        }
        return files
    }

    private func copyStore(_ store: String, into dir: String) throws -> String {
        let target = dir + "/" + URL(fileURLWithPath: store).lastPathComponent
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
    @Test(.enabled(if: fileSizeLimitsCanBeTried), arguments: stores)
    func purgeUnderAFileSizeLimitLeavesTheFolderAsItWas(store: String) throws {
        let cases: [(kib: Int, extra: [String], message: String)] =
            [
                (8, [], "; nothing was"),
                (32, [], "; nothing was"),
                (8, ["--no-backup"], "; nothing was deleted"),
            ]
            + (store == RealStores.photos
                ? [
                    // Past the end of its 829 KiB -wal: the delete appends frames until the limit stops it.
                    (835, ["--no-backup"], "; nothing was deleted")
                ] : [])
        for c in cases {
            let dir = try TemporaryDirectory()
            let copy = try copyStore(store, into: dir.path)
            let before = try contents(dir.path)
            let r = try run(
                limitKiB: c.kib,
                ["purge", copy, "--before", "tx:20", "--execute", "--yes", "--allow-expire", "--format", "json"]
                    + c.extra)
            #expect(r.status == 2, "\(store) \(c): \(r.status) \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].hasPrefix("cdhist: \(copy): ") && lines[0].contains(c.message)
                    && lines[0].contains("limit"), "\(c.kib) KiB \(c.extra): \(r.stderr)")
            // The same files; the same bytes but in -shm, SQLite's shared memory index (the first
            // connection to a copied store rebuilds it: it is the same index, not always the same bytes).
            let after = try contents(dir.path)
            #expect(after.keys.sorted() == before.keys.sorted(), "\(store) \(c): \(after.keys.sorted())")
            #expect(
                after.filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") },
                "\(store) \(c): a file changed")
        }
    }

    /// A limit past the delete (the Photos store's -wal is 829 KiB) but short of the VACUUM's
    /// rewrite: the purge is committed and says so, the file intact and its files the same.
    @Test(.enabled(if: RealStores.available && fileSizeLimitsCanBeTried))
    func aVacuumUnderAFileSizeLimitKeepsTheCommittedPurge() throws {
        let dir = try TemporaryDirectory()
        let copy = try copyStore(RealStores.photos, into: dir.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let r = try run(
            limitKiB: 1200,
            [
                "purge", copy, "--before", "tx:200", "--execute", "--yes", "--no-backup", "--vacuum", "--allow-expire",
                "--format", "json",
            ])
        #expect(
            r.status == 2 && r.stderr.hasPrefix("cdhist: \(copy): ") && r.stderr.split(separator: "\n").count == 1
                && r.stderr.contains(
                    "a file-size limit (ulimit -f) was reached); the purge was committed, VACUUM was not"),
            "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == names)
        let queue = try LogicalDump.readOnlyQueue(copy)
        defer { try? queue.close() }
        let (integrity, oldest) = try queue.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(db, sql: "SELECT min(Z_PK) FROM ATRANSACTION")
            )
        }
        #expect(integrity == "ok" && oldest == 200)
    }

    /// A full disk (a tmpfs just larger than the store, mounted when the tests run as root):
    /// the backup, or without one the delete, runs out of space.
    @Test(.enabled(if: RealStores.available)) func aFullDiskLosesNothing() throws {
        let mountPoint = try TemporaryDirectory()
        let sizes = try ["", "-wal", "-shm"].map {
            try FileManager.default.attributesOfItem(atPath: RealStores.photos + $0)[.size] as? Int ?? 0
        }
        // Room for the copy and 64 KiB: not for a backup, nor for the delete's -wal frames.
        let kib = (sizes.reduce(0, +) + 1023) / 1024 + 64
        guard getuid() == 0,
            (try? CLI.run(["-t", "tmpfs", "-o", "size=\(kib)k", "tmpfs", mountPoint.path], executable: "/bin/mount"))?
                .status == 0
        else {
            print("NOTICE: cannot mount a small tmpfs (needs root); the full-disk test is skipped")
            return
        }
        defer { _ = try? CLI.run([mountPoint.path], executable: "/bin/umount") }
        for (extra, outcome) in [([String](), "; nothing was changed"), (["--no-backup"], "; nothing was deleted")] {
            for name in try FileManager.default.contentsOfDirectory(atPath: mountPoint.path) {
                try FileManager.default.removeItem(atPath: mountPoint.path + "/" + name)
            }
            let copy = try copyStore(RealStores.photos, into: mountPoint.path)
            let before = try contents(mountPoint.path)
            let r = try CLI.run(
                ["purge", copy, "--before", "tx:200", "--execute", "--yes", "--allow-expire", "--format", "json"]
                    + extra)
            #expect(
                r.status == 2 && r.stderr.hasPrefix("cdhist: \(copy): ") && r.stderr.split(separator: "\n").count == 1
                    && r.stderr.contains("no space left: the disk is full)\(outcome)"), "\(extra): \(r.stderr)")
            let after = try contents(mountPoint.path)
            #expect(after.keys.sorted() == before.keys.sorted(), "\(extra): \(after.keys.sorted())")
            #expect(
                after.filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") },
                "\(extra): a file changed")
        }
    }

    @Test(.enabled(if: fileSizeLimitsCanBeTried)) func repairDefaultsUnderAFileSizeLimitLeavesThePlistAsItWas() throws {
        for kib in [1] {
            let dir = try TemporaryDirectory()
            let plist = dir.file("defaults.plist")
            try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/tokens.plist", toPath: plist)
            let before = try contents(dir.path)
            let r = try run(
                limitKiB: kib,
                [
                    "repair-defaults", plist, "--actor", "app", "--key-format", "phtk", "--to-oldest",
                    "--store", Repository.fixtures + "/MergeState/Tasks.sqlite", "--execute",
                ])
            #expect(
                r.status == 2 && r.stderr.hasPrefix("cdhist: \(plist): backup failed (writing \(plist).cdhist-backup-")
                    && r.stderr.contains("a file-size limit (ulimit -f) was reached"), "\(kib) KiB: \(r.stderr)")
            #expect(try contents(dir.path) == before)
        }
    }

    /// Every writing command in a folder this process may not write to. As root (CI) the folder
    /// is root's and cdhist runs as nobody through setpriv, so the writes really fail with
    /// EACCES; otherwise the folder is made read-only (mode 555).
    @Test func aReadOnlyFolderIsRefusedAndLeftAsItWas() throws {
        let root = getuid() == 0
        let setpriv = "/usr/bin/setpriv"
        if root && !FileManager.default.isExecutableFile(atPath: setpriv) {
            print("NOTICE: running as root without setpriv; the read-only folder test is skipped")
            return
        }
        let dir = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "")
        let store = dir.file("Tasks.sqlite")
        let plist = dir.file("tokens.plist")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: dir.file(name))
        }
        if !root { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path) }
        let before = try contents(dir.path)
        let commands: [(arguments: [String], file: String)] = [
            (["purge", store, "--before", "tx:20", "--execute", "--yes"], store),
            (["purge", store, "--before", "tx:20", "--execute", "--yes", "--no-backup", "--vacuum"], store),
            (
                [
                    "repair-defaults", plist, "--actor", "app", "--key-format", "phtk", "--to-oldest", "--store", store,
                    "--execute",
                ], plist
            ),
            (["export", store, "--out", dir.file("history.ndjson")], dir.file("history.ndjson")),
            (["report", store, "--out", dir.file("report.html")], dir.file("report.html")),
        ]
        for c in commands {
            let cdhist = CLI.products.appendingPathComponent("cdhist").path
            let r =
                root
                ? try CLI.run(
                    ["--reuid=nobody", "--regid=nogroup", "--clear-groups", cdhist] + c.arguments, executable: setpriv)
                : try CLI.run(c.arguments)
            let lines = r.stderr.split(separator: "\n")
            #expect(
                r.status == 2 && lines.count == 1 && lines[0].hasPrefix("cdhist: \(c.file): "),
                "\(c.arguments): \(r.status) \(r.stderr)")
            #expect(try contents(dir.path) == before, "\(c.arguments) changed the folder")
        }
    }

    @Test(.enabled(if: fileSizeLimitsCanBeTried)) func exportAndReportUnderAFileSizeLimitLeaveNoFile() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        // Large enough to be exported in chunks on every core.
        let generated = try TemporaryDirectory()
        let large = generated.file("Large.sqlite")
        let write = try CLI.run(
            ["--transactions", "12000", "--changes-per-transaction", "3", "--out", large], executable: "cdhist-fixtures"
        )
        #expect(write.status == 0, "\(write.stderr)")
        for command in [
            ["export", store, "--out"], ["report", store, "--out"], ["export", large, "--out"],
            ["export", large, "--format", "csv", "--out"],
        ] {
            let dir = try TemporaryDirectory()
            let out = dir.file(command[0] == "export" ? "history.ndjson" : "report.html")
            let r = try run(limitKiB: 2, command + [out])
            #expect(
                r.status == 2 && r.stderr.hasPrefix("cdhist: \(out): ") && r.stderr.split(separator: "\n").count == 1,
                "\(command[0]): \(r.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "\(command[0]) left a file")
        }
    }

    /// An export to a file ended by Ctrl-C, SIGTERM or SIGHUP leaves no temporary file (and
    /// no output file); one that finished first leaves its whole file.
    @Test func anExportEndedBySignalLeavesNoFile() throws {
        let generated = try TemporaryDirectory()
        let store = generated.file("Large.sqlite")
        let write = try CLI.run(
            ["--transactions", "12000", "--changes-per-transaction", "3", "--out", store], executable: "cdhist-fixtures"
        )
        #expect(write.status == 0, "\(write.stderr)")
        var ended = 0
        for (i, sig) in [SIGINT, SIGTERM, SIGHUP, SIGINT, SIGTERM, SIGHUP].enumerated() {
            let dir = try TemporaryDirectory()
            let out = dir.file("history.ndjson")
            let running = try CLI.start(["export", store, "--out", out])
            usleep(useconds_t(50_000 * (i + 1)))
            kill(running.pid, sig)
            let status = try running.wait().status
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            if status == 128 + sig {
                ended += 1
                #expect(left.isEmpty, "signal \(sig) left \(left)")
            } else {
                #expect(status == 0 && left == ["history.ndjson"], "signal \(sig): status \(status), left \(left)")
            }
        }
        #expect(ended > 0, "every export finished before its signal: nothing was tested")
    }
}
