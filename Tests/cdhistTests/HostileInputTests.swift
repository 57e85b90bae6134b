import Foundation
import HistoryKit
import TestSupport
import Testing

/// What a store, a plist or a path can do to the user: the targets of --out.
@Suite struct HostileInputTests {
    /// A real store when the shared stores are here, else the demo store, copied into `dir`.
    private func storeCopy(in dir: TemporaryDirectory) throws -> String {
        let source = RealStores.available ? RealStores.photos15 : Repository.fixtures + "/AppGroup/Tasks.sqlite"
        if !RealStores.available { print("NOTICE: shared real stores not found; --out targets are tried on the demo store") }
        let name = URL(fileURLWithPath: source).lastPathComponent
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: dir.file(name + suffix))
        }
        return dir.file(name)
    }

    @Test func exportRefusesEveryFileOfTheStoreItReads() throws {
        let dir = try TemporaryDirectory()
        let store = try storeCopy(in: dir)
        try FileManager.default.linkItem(atPath: store, toPath: dir.file("hard-link"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("wal-link"), withDestinationPath: store + "-wal")
        let before = try DirectoryState(dir.path)
        let name = URL(fileURLWithPath: store).lastPathComponent
        for target in [name, name + "-wal", name + "-shm", name + "-journal", "sub/../" + name, "hard-link", "wal-link"] {
            let r = try CLI.run(["export", store, "--out", dir.file(target), "--limit", "1"])
            #expect(r.status == 2, "\(target)")
            #expect(r.stderr.hasPrefix("cdhist: \(dir.file(target)): cannot write ("), "\(target): \(r.stderr)")
            #expect(try DirectoryState(dir.path) == before, "\(target) changed a file")
        }
    }

    @Test func exportWritesThroughDevicesAndPipesAndKeepsAReplacedFilesMode() throws {
        let dir = try TemporaryDirectory()
        let store = try storeCopy(in: dir)
        let null = try CLI.run(["export", store, "--out", "/dev/null", "--limit", "2"])
        #expect(null.status == 0 && null.stderr.isEmpty)
        #expect(FileStatus("/dev/null")?.kind == .characterDevice)
        #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
        let reader = try CLI.start([dir.file("fifo")], executable: "/bin/cat")
        let fifo = try CLI.run(["export", store, "--out", dir.file("fifo"), "--limit", "2"])
        #expect(fifo.status == 0, "\(fifo.stderr)")
        let read = try reader.wait(timeout: 30)
        #expect(String(decoding: read.stdout, as: UTF8.self).split(separator: "\n").count == 2)
        #expect(FileStatus(dir.file("fifo"))?.kind == .fifo)
        let privateFile = dir.file("private.ndjson")
        #expect(FileManager.default.createFile(atPath: privateFile, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o600]))
        let replaced = try CLI.run(["export", store, "--out", privateFile, "--limit", "2"])
        #expect(replaced.status == 0)
        #expect(FileStatus(privateFile)?.permissions == 0o600)
        #expect(try String(contentsOfFile: privateFile, encoding: .utf8).split(separator: "\n").count == 2)
    }
}

/// Inputs that are no regular file, or too large, are refused at once; links are followed.
@Suite struct InputFileTests {
    let store = Repository.fixtures + "/MergeState/Tasks.sqlite"

    @Test func fifosDevicesAndHugeFilesAreRefusedWithinASecond() throws {
        let dir = try TemporaryDirectory()
        #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
        let sparse = dir.file("sparse.plist")
        #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
        #expect(truncate(sparse, 3 << 30) == 0)
        let cases: [([String], String)] = [
            (["actors", store, "--defaults", dir.file("fifo")], "not a regular file but a FIFO (named pipe)"),
            (["actors", store, "--defaults", "/dev/zero"], "not a regular file but a character device"),
            (["actors", store, "--defaults", sparse], "larger than 256 MiB"),
            (["actors", store, "--token", "x=" + dir.file("fifo")], "not a regular file but a FIFO"),
            (["actors", store, "--token", "/dev/zero"], "not a regular file but a character device"),
            (["check", store, "--config", "/dev/zero"], "not a regular file but a character device"),
            (["check", store, "--config", dir.file("fifo")], "not a regular file but a FIFO"),
            (["info", dir.file("fifo")], "not a regular file but a FIFO"),
            (["info", "/dev/zero"], "not a regular file but a character device"),
            (["purge", store, "--before", "token:/dev/zero"], "not a regular file but a character device"),
        ]
        for (arguments, expected) in cases {
            let started = Date()
            let r = try CLI.run(arguments)
            #expect(r.status == 2 && r.stderr.contains(expected), "\(arguments): \(r.stderr)")
            #expect(Date().timeIntervalSince(started) < 10, "\(arguments) took too long")
        }
    }

    @Test func aStoreAndAPlistThroughLinksWorkAndKeepTheirModes() throws {
        let dir = try TemporaryDirectory()
        let real = dir.file("real")
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: Repository.fixtures + "/WALPending/Tasks.sqlite" + suffix) {
            try FileManager.default.copyItem(atPath: Repository.fixtures + "/WALPending/Tasks.sqlite" + suffix, toPath: real + "/Tasks.sqlite" + suffix)
        }
        try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/phtk.plist", toPath: real + "/phtk.plist")
        #expect(chmod(real + "/phtk.plist", 0o600) == 0 && chmod(real + "/Tasks.sqlite", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir.file("store.sqlite"), withDestinationPath: real + "/Tasks.sqlite")
        try FileManager.default.createSymbolicLink(atPath: dir.file("defaults.plist"), withDestinationPath: real + "/phtk.plist")
        // The WAL beside the real file is read through the link: all 34 transactions, not the main file's 26.
        let through = try CLI.run(["transactions", dir.file("store.sqlite"), "--format", "ndjson"])
        #expect(through.status == 0 && through.lines.count == 34, "\(through.stderr)")
        let repair = try CLI.run(["repair-defaults", dir.file("defaults.plist"), "--actor", "widget", "--to", "2025-03-04", "--execute",
                                  "--backup", dir.file("backup.plist")])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("defaults.plist"))) == real + "/phtk.plist")
        #expect(FileContents.read(real + "/phtk.plist") != FileContents.read(Repository.fixtures + "/MergeState/phtk.plist"))
        #expect(FileStatus(real + "/phtk.plist")?.permissions == 0o600 && FileStatus(dir.file("backup.plist"))?.permissions == 0o600)
        let purge = try CLI.run(["purge", dir.file("store.sqlite"), "--before", "tx:3", "--execute", "--backup", dir.file("backup.sqlite")])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(FileStatus(dir.file("backup.sqlite"))?.permissions == 0o600)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("store.sqlite"))) == real + "/Tasks.sqlite")
        let journal = try CLI.run(["purge", dir.file("store.sqlite"), "--before", "tx:5", "--execute", "--backup", real + "/Tasks.sqlite-journal"])
        #expect(journal.status == 2 && journal.stderr.contains("a file of the store"), "\(journal.stderr)")
        #expect(!FileManager.default.fileExists(atPath: real + "/Tasks.sqlite-journal"))
    }
}
