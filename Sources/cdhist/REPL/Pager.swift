import Foundation
import HistoryKit

/// Sends a command's standard output through `$PAGER` (default `less -FRXK`, which quits
/// by itself when the output fits the screen, and on Ctrl-C).
enum Pager {
    static let defaultCommand = "less -FRXK"

    /// The pager for `line`, or nil: none for `export` and `watch` (they stream), for a command
    /// that asks before it writes (`--execute`), for session commands, or when
    /// `PAGER` is empty or `cat`.
    static func command(for line: String) -> String? {
        guard let words = try? LineSplitter.split(line), let first = words.first,
            LineRunner.commandNames.contains(first), first != "export", first != "watch",
            !words.contains("--execute")
        else {
            return nil
        }
        let pager = ProcessInfo.processInfo.environment["PAGER"] ?? defaultCommand
        let trimmed = pager.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Runs `body` with stdout going into the pager, then waits for the pager. The pager runs
    /// in this process group, so it reads the terminal. When it is quit before the output ends,
    /// `onQuit` asks the command to stop, the rest of its output is dropped, and what the command
    /// then throws (its interruption) is not an error: nil is returned. `env`'s commands learn of
    /// a quit pager through its ``REPLEnvironment/standardOutputClosed``.
    static func run<T>(_ pager: String, env: REPLEnvironment, onQuit: @escaping () -> Void, _ body: () throws -> T)
        throws -> T?
    {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return try body() }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                "/bin/sh", ["-c", pager], redirections: [.duplicate(fds[0], to: STDIN_FILENO), .close(fds[1])])
        } catch {
            close(fds[0])
            close(fds[1])
            return try body()
        }
        close(fds[0])
        fflush(nil)  // every C stream: Swift 6 cannot name C's `stdout`, a global variable
        let saved = dup(STDOUT_FILENO)
        dup2(fds[1], STDOUT_FILENO)
        close(fds[1])
        // Whether the pager was quit before the output ended; set from the writing thread.
        let quit = Locked(false)
        env.standardOutputClosed = {
            quit.set(true)
            onQuit()
        }
        defer {
            fflush(nil)  // every C stream: Swift 6 cannot name C's `stdout`, a global variable
            env.standardOutputClosed = nil
            dup2(saved, STDOUT_FILENO)
            close(saved)
            _ = child.wait()
        }
        do {
            return try body()
        } catch  where quit.current {
            return nil
        }
    }
}
