import Foundation
import TestSupport
import Testing

@testable import HistoryKit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The calls that differ between Linux and macOS (HistoryReading/Platform), on the system the tests run on.
@Suite(.serialized) struct PlatformTests {
    /// A child runs in this process group (a pager reads the terminal), with the signals this
    /// process ignores back at their default action, and its descriptors as asked.
    @Test func aChildGetsThisProcessGroupDefaultSignalsAndItsDescriptors() throws {
        // Ignored here (as the session does), and an ignored signal stays ignored across exec
        // unless reset: SIGPIPE ends the child (128 + 13).
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let piped = try ChildProcess.spawn("/bin/sh", ["-c", "kill -PIPE $$; exit 7"])
        #expect(piped.wait() == 128 + SIGPIPE)

        // exec: the shell becomes sleep, so SIGTERM ends it (a shell that forked sleep would leave
        // it holding the test run's output open for 30 s after the shell is gone).
        let sleeper = try ChildProcess.spawn("/bin/sh", ["-c", "exec sleep 30"])
        #expect(getpgid(sleeper.pid) == getpgrp())
        #expect(sleeper.exitStatus() == nil)
        sleeper.send(SIGTERM)
        #expect(sleeper.wait() == 128 + SIGTERM)

        let dir = try TemporaryDirectory()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let cat = try ChildProcess.spawn(
            "/bin/cat", [], environment: [:],
            redirections: [
                .duplicate(fds[0], to: STDIN_FILENO), .close(fds[1]),
                .open(dir.file("out"), descriptor: STDOUT_FILENO, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600),
            ], closeOthers: true)
        close(fds[0])
        let text = Array("through the pipe\n".utf8)
        #expect(write(fds[1], text, text.count) == text.count)
        close(fds[1])
        #expect(cat.wait() == 0)
        #expect(FileContents.read(dir.file("out")) == Data(text))

        #expect(throws: ChildProcess.SpawnFailed.self) { try ChildProcess.spawn("/nonexistent/program", []) }
    }

    /// Why a file cannot be read, in words; EPERM on macOS is its privacy protection.
    @Test func unreadableFilesAreExplained() throws {
        let dir = try TemporaryDirectory()
        #expect(FileAccess.whyUnreadable(dir.file("missing")) == "no such file")
        #expect(FileManager.default.createFile(atPath: dir.file("here"), contents: Data("x".utf8)))
        #expect(FileAccess.whyUnreadable(dir.file("here")) == nil)
        #expect(FileAccess.reason(errno: EACCES) == "permission denied")
        #if os(macOS)
            #expect(FileAccess.reason(errno: EPERM).contains("Full Disk Access"))
        #else
            #expect(FileAccess.reason(errno: EPERM) == "operation not permitted")
        #endif
        #expect(throws: MergeStateError.fileNotFound(path: dir.file("missing"))) {
            try DefaultsReader.read(path: dir.file("missing"), storeUUID: nil)
        }
    }

    /// The modification time to the nanosecond and the file's identity.
    @Test func fileStatusNamesTheFile() throws {
        let dir = try TemporaryDirectory()
        #expect(FileStatus(dir.file("missing")) == nil)
        #expect(FileManager.default.createFile(atPath: dir.file("a"), contents: Data("abc".utf8)))
        let status = try #require(FileStatus(dir.file("a")))
        #expect(status.size == 3)
        let date = try #require(
            try FileManager.default.attributesOfItem(atPath: dir.file("a"))[.modificationDate] as? Date)
        #expect(abs(Double(status.modifiedNanoseconds) / 1e9 - date.timeIntervalSince1970) < 0.001)
        #expect(
            try FileManager.default.attributesOfItem(atPath: dir.file("a"))[.systemFileNumber] as? UInt64
                == status.inode)
    }
    /// A path resolves as the system resolves it, and where it would lead when the file is not there yet.
    @Test func resolvedPathFollowsDanglingLinksAndDotDotThroughLinks() throws {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        let base = FileStatus.resolvedPath(dir.path)
        try fm.createDirectory(atPath: dir.file("a/b"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir.file("dangling"), withDestinationPath: "a/store-wal")
        try fm.createSymbolicLink(atPath: dir.file("chain"), withDestinationPath: dir.file("dangling"))
        try fm.createSymbolicLink(atPath: dir.file("to-b"), withDestinationPath: "a/b")
        try fm.createSymbolicLink(atPath: dir.file("loop"), withDestinationPath: "loop")
        #expect(FileStatus.resolvedPath(dir.file("dangling")) == base + "/a/store-wal")
        #expect(FileStatus.resolvedPath(dir.file("chain")) == base + "/a/store-wal")
        // `..` after a link goes up from where the link led, not from the link's folder.
        #expect(FileStatus.resolvedPath(dir.file("to-b/../x")) == base + "/a/x")
        #expect(FileStatus.resolvedPath(dir.file("a/./b/../../missing/../a")) == base + "/a")
        // A loop stops after the system's limit instead of running on.
        #expect(FileStatus.resolvedPath(dir.file("loop")) == base + "/loop")
        let cwd = fm.currentDirectoryPath
        #expect(FileStatus.resolvedPath("relative") == FileStatus.resolvedPath(cwd) + "/relative")
        #expect(FileStatus.sameFile(dir.file("chain"), dir.file("a/b/../store-wal")))
    }
}
