import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion with posix_spawn and waitpid, never through
/// Foundation's Process: on Linux, Process learns that a child ended when a
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

    /// Runs `executable` with `arguments` and the whole `environment`; stdin
    /// reads `stdinPath` (default /dev/null). Kills the child (SIGKILL) and throws
    /// `TimedOut` when it runs longer than `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                           stdinPath: String = "/dev/null", timeout: Double = 300) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cdhist-spawn-\(UUID().uuidString)").path
        let outPath = scratch + ".out", errPath = scratch + ".err"
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeInheritedDescriptors(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let command = [executable] + arguments
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SpawnFailed(command: command, errno: spawned) }

        var status: Int32 = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var pause: useconds_t = 1_000
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw SpawnFailed(command: command, errno: errno) }
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > timeout {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw TimedOut(command: command, seconds: timeout)
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        // As a shell reports it: the exit code, or 128 + the signal that ended the child.
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exitStatus,
                      stdout: FileManager.default.contents(atPath: outPath) ?? Data(),
                      stderr: FileManager.default.contents(atPath: errPath) ?? Data())
    }

    /// glibc 2.34+ has posix_spawn_file_actions_addclosefrom_np, but Swift's Glibc
    /// module does not export it: look it up at run time.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom {
            _ = addCloseFrom(&actions, 3)
            return
        }
        // Elsewhere, close what is open now.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 && fcntl(fd, F_GETFD) != -1 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}
