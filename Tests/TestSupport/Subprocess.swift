import Foundation
import HistoryKit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion with HistoryKit's ``ChildProcess`` (posix_spawn and
/// waitpid), never through Foundation's Process: on Linux, Process learns that a child ended when a
/// socket inherited by the child closes, so a child that leaves a daemon behind
/// (`tmux new-session` starting the tmux server) is never seen to exit and
/// `waitUntilExit()` hangs forever. Here the child keeps only fds 0–2, its
/// output goes to files (no pipe can fill up), and a deadline turns a hang
/// into a test failure instead of a stalled CI run.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    public struct TimedOut: Error, CustomStringConvertible {
        public var command: [String]
        public var seconds: Double
        public var description: String { "timed out after \(seconds) s: \(command.joined(separator: " "))" }
    }

    public struct SpawnFailed: Error, CustomStringConvertible {
        public var command: [String]
        public var errno: Int32
        public var description: String { "cannot start \(command.first ?? "?"): \(String(cString: strerror(errno)))" }
    }

    /// A child started by ``start(_:_:environment:stdinPath:)``, running until ``wait(timeout:)`` reaps it.
    public final class Running: @unchecked Sendable {
        public let pid: pid_t
        public let command: [String]
        private let outPath: String
        private let errPath: String
        private var reaped = false
        /// The status collected by ``hasExited`` when the child ended.
        private var ended: Int32?

        fileprivate init(pid: pid_t, command: [String], outPath: String, errPath: String) {
            self.pid = pid
            self.command = command
            self.outPath = outPath
            self.errPath = errPath
        }

        /// Whether the child has ended (it is reaped then; ``wait(timeout:)`` returns at once).
        public var hasExited: Bool {
            if ended != nil { return true }
            var status: Int32 = 0
            guard !reaped, waitpid(pid, &status, WNOHANG) == pid else { return reaped }
            ended = status
            reaped = true
            return true
        }

        /// Waits for the child to end; kills it (SIGKILL) and throws `TimedOut`
        /// when it runs longer than `timeout` seconds from now.
        public func wait(timeout: Double = 300) throws -> Result {
            defer { cleanUp() }
            var status: Int32 = ended ?? 0
            let start = DispatchTime.now().uptimeNanoseconds
            var pause: useconds_t = 1_000
            while ended == nil {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { break }
                if r < 0 && errno != EINTR { throw SpawnFailed(command: command, errno: errno) }
                if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > timeout {
                    kill(pid, SIGKILL)
                    _ = waitpid(pid, &status, 0)
                    reaped = true
                    throw TimedOut(command: command, seconds: timeout)
                }
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
            reaped = true
            return Result(
                status: ChildProcess.shellStatus(status),
                stdout: FileContents.read(outPath) ?? Data(),
                stderr: FileContents.read(errPath) ?? Data())
        }

        /// What the child has written to stdout so far.
        public var outputSoFar: Data { FileContents.read(outPath) ?? Data() }

        /// Sends the child SIGINT, as Ctrl-C does.
        public func interrupt() {
            if !reaped { kill(pid, SIGINT) }
        }

        /// Kills and reaps the child if it still runs (for clean-up after a failure).
        public func terminate() {
            guard !reaped else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            reaped = true
            cleanUp()
        }

        private func cleanUp() {
            unlink(outPath)
            unlink(errPath)
        }

        deinit { terminate() }
    }

    /// Runs `executable` with `arguments` and the whole `environment`; stdin
    /// reads `stdinPath` (default /dev/null). Kills the child (SIGKILL) and throws
    /// `TimedOut` when it runs longer than `timeout` seconds.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdinPath: String = "/dev/null", timeout: Double = 300
    ) throws -> Result {
        try start(executable, arguments, environment: environment, stdinPath: stdinPath).wait(timeout: timeout)
    }

    /// Starts `executable` without waiting for it; its output goes to files
    /// that ``Running/wait(timeout:)`` reads.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdinPath: String = "/dev/null"
    ) throws -> Running {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cdhist-spawn-\(UUID().uuidString)")
            .path
        let outPath = scratch + ".out"
        let errPath = scratch + ".err"
        let command = [executable] + arguments
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                executable, arguments, environment: environment,
                redirections: [
                    .open(stdinPath, descriptor: 0, flags: O_RDONLY, mode: 0),
                    .open(outPath, descriptor: 1, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600),
                    .open(errPath, descriptor: 2, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600),
                ], closeOthers: true)
        } catch let failure as ChildProcess.SpawnFailed {
            unlink(outPath)
            unlink(errPath)
            throw SpawnFailed(command: command, errno: failure.code)
        }
        return Running(pid: child.pid, command: command, outPath: outPath, errPath: errPath)
    }
}
