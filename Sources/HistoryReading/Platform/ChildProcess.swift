import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn` in this process group (so a pager can read the
/// terminal), with every signal at its default action and none blocked whatever this process
/// ignores or blocks, and waited for with `waitpid`.
///
/// Foundation's `Process` does not fit: on Linux it starts the child in a process group of
/// its own (a pager there is stopped when it reads the terminal) and learns that a child ended
/// from a descriptor the child inherited, so a child that leaves a daemon behind is never seen
/// to end. swift-subprocess is asynchronous only and watches SIGCHLD for the whole process.
public struct ChildProcess: Sendable {
    /// What the child's descriptors are before it runs.
    public enum Redirection: Sendable {
        /// `from` is the child's `to` (the child's stdin reads a pipe's end).
        case duplicate(Int32, to: Int32)
        /// The child does not get this descriptor.
        case close(Int32)
        /// The child's `descriptor` is `path`, opened with `flags` (and `mode` when created).
        case open(String, descriptor: Int32, flags: Int32, mode: mode_t)
    }

    public struct SpawnFailed: Error, CustomStringConvertible {
        public var program: String
        public var code: Int32
        public var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
    }

    public let pid: pid_t

    /// The signals a child gets back at their default action: those this process may ignore
    /// or handle (a pager must be stoppable by Ctrl-C and must end when its reader goes).
    static let defaultedSignals: [Int32] = [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ]

    /// Starts `program` (a path) with `arguments` (without the program's name) and
    /// `environment` (this process's when nil); descriptors above 2 are closed in the
    /// child when `closeOthers`, and inherited otherwise unless marked close-on-exec.
    public static func spawn(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil,
        redirections: [Redirection] = [], closeOthers: Bool = false
    ) throws -> ChildProcess {
        var actions = SpawnFileActions()
        defer { actions.destroy() }
        for redirection in redirections {
            switch redirection {
            case .duplicate(let from, let to): posix_spawn_file_actions_adddup2(&actions.raw, from, to)
            case .close(let fd): posix_spawn_file_actions_addclose(&actions.raw, fd)
            case .open(let path, let fd, let flags, let mode):
                posix_spawn_file_actions_addopen(&actions.raw, fd, path, flags, mode)
            }
        }
        if closeOthers { actions.closeDescriptors(from: 3) }
        var attributes = SpawnAttributes()
        defer { attributes.destroy() }
        attributes.resetSignals(defaultedSignals)

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let pairs = environment ?? ProcessInfo.processInfo.environment
        let envp = pairs.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions.raw, &attributes.raw, argv, envp)
        guard code == 0 else { throw SpawnFailed(program: program, code: code) }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child to end; its status as a shell reports it (the exit code, or 128 + the signal).
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        return Self.shellStatus(status)
    }

    /// The child's status when it has ended (it is reaped then), nil while it runs;
    /// -1 when it cannot be waited for (reaped already).
    public func exitStatus() -> Int32? {
        var status: Int32 = 0
        switch waitpid(pid, &status, WNOHANG) {
        case pid: return Self.shellStatus(status)
        case 0: return nil
        default: return errno == EINTR ? nil : -1
        }
    }

    /// Sends the child `signal`.
    public func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// A `waitpid` status as a shell reports it: the exit code, or 128 + the signal that ended the child
    /// (the `WIFEXITED`/`WTERMSIG` macros, which Swift does not import, have this layout on Linux and macOS).
    public static func shellStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
