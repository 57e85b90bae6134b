import CLineEditor
import Foundation
import HistoryKit

/// The interactive REPL: GNU Readline or libedit (editing, Ctrl-R, history file, tab
/// completion; see CLineEditor), Ctrl-C to interrupt a command (twice at an empty prompt to
/// leave), Ctrl-D to leave, long output through `$PAGER`.
///
/// The line editor's callbacks are C functions, so the running session is reached
/// through ``active``; there is only ever one.
// @unchecked Sendable: Ctrl-C's signal thread reaches a session only through
// interruptRunningCommand(), which reads `running` and `interrupted` under `runningLock` and
// interrupts the environment's store under the environment's own lock; everything else runs on
// the session's thread.
final class InteractiveSession: @unchecked Sendable {
    /// Safe unchecked: set and cleared by the session's thread around its loop, and read by the
    /// line editor's completion callback, which the line editor calls on that same thread.
    nonisolated(unsafe) static var active: InteractiveSession?

    let env: REPLEnvironment
    let runner: LineRunner
    private let completer: Completer
    private let historyPath: String
    private let signals = SignalPipe()
    private var line: String?
    private var lineDone = false
    private var interruptsAtEmptyPrompt = 0
    /// Whether a command runs; read by the signal thread, so only under `runningLock`
    /// (ThreadSanitizer reported the plain Bool as a data race).
    private var running = false
    /// Whether Ctrl-C stopped the running command (under `runningLock`).
    private var interrupted = false
    private let runningLock = NSLock()

    init(env: REPLEnvironment) {
        self.env = env
        runner = LineRunner(env: env)
        completer = Completer(env: env)
        historyPath = Self.historyFile()
    }

    /// `$XDG_STATE_HOME/cdhist/history`, else `~/.cdhist_history`.
    static func historyFile() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
            let dir = state + "/cdhist"
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            return dir + "/history"
        }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cdhist_history"
    }

    static let historyLimit: Int32 = 1000

    /// Runs until quit or Ctrl-D; returns the exit status.
    func run() -> Int32 {
        InteractiveSession.active = self
        defer { InteractiveSession.active = nil }
        env.terminal = Terminal.of(env.console, noColor: false)
        env.confirm = { [weak self] question in self?.ask(question) ?? false }
        // Set up first: libedit's set-up starts its history afresh.
        cdhist_line_setup("cdhist") { text, start, _ in
            InteractiveSession.active?.completer.complete(
                text: text.map { String(cString: $0) } ?? "", start: Int(start))
        }
        cdhist_history_limit(Self.historyLimit)
        _ = cdhist_history_read(historyPath)
        // A pager quit before the output ends closes the pipe the command writes to: that
        // write fails (EPIPE) and stops the command, instead of SIGPIPE ending the session.
        signal(SIGPIPE, SIG_IGN)
        signals.install { [weak self] in self?.interruptRunningCommand() ?? false }
        print("cdhist \(ToolVersion.number) — type help for commands, Ctrl-D to quit")
        while let text = readLine(prompt: prompt()) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            cdhist_history_add(text)
            if FileManager.default.fileExists(atPath: historyPath) {
                _ = cdhist_history_append(1, historyPath)
            } else {
                _ = cdhist_history_write(historyPath)
            }
            if execute(text) == .quit { break }
        }
        _ = cdhist_history_truncate(historyPath, Self.historyLimit)
        signals.uninstall()
        return 0
    }

    private func prompt() -> String {
        let name = TerminalText.visible(URL(fileURLWithPath: env.storePath).lastPathComponent)
        let count = (try? env.openStore().transactionCount()).map { " (\(plural($0, "transaction")))" } ?? ""
        return "\(name)\(count)> "
    }

    /// Runs a line, through the pager when it prints a table to the terminal.
    private func execute(_ text: String) -> LineRunner.Outcome {
        runningLock.withLock {
            running = true
            interrupted = false
        }
        defer {
            // Completion reads the store while the next line is typed: not interrupted.
            runningLock.withLock {
                running = false
                env.clearInterrupt()
            }
        }
        let pager = Pager.command(for: text)
        do {
            if let pager {
                return try Pager.run(pager, env: env, onQuit: { [env] in env.interrupt() }, { try runner.run(text) })
                    ?? .done
            }
            return try runner.run(text)
        } catch  where pager != nil && runningLock.withLock({ interrupted }) {
            // Ctrl-C while the pager shows quits it (less -K), as q does: back to the prompt, no error.
            return .done
        } catch {
            fflush(nil)  // every C stream: Swift 6 cannot name C's `stdout`, a global variable
            env.console.printError("cdhist: \(ScriptRunner.message(for: error))")
            return .done
        }
    }

    /// Called from the signal thread on Ctrl-C: interrupts a running command, or
    /// returns false so the prompt handles it.
    private func interruptRunningCommand() -> Bool {
        // Under the lock, so the command cannot end (and the next one start) in between.
        runningLock.withLock {
            guard running else { return false }
            interrupted = true
            env.interrupt()
            return true
        }
    }

    /// Reads one line with the line editor's callback interface, so Ctrl-C can be handled at the prompt.
    private func readLine(prompt: String) -> String? {
        lineDone = false
        line = nil
        cdhist_line_begin(prompt) { raw in
            guard let session = InteractiveSession.active else { return }
            session.line = raw.map { String(cString: $0) }
            session.lineDone = true
            if let raw { free(raw) }
            cdhist_line_end()
        }
        while !lineDone {
            var fds = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.promptFD, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
            if fds[1].revents & Int16(POLLIN) != 0 {
                signals.drainPrompt()
                handleInterruptAtPrompt()
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 {
                cdhist_line_read_char()
            }
        }
        if line == nil { print("") }  // Ctrl-D: end the prompt's line
        if let text = line, !text.trimmingCharacters(in: .whitespaces).isEmpty { interruptsAtEmptyPrompt = 0 }
        return line
    }

    /// Ctrl-C at the prompt clears the line; twice on an empty line leaves.
    private func handleInterruptAtPrompt() {
        if cdhist_line_cancel() == 0 {
            interruptsAtEmptyPrompt += 1
            if interruptsAtEmptyPrompt >= 2 {
                cdhist_line_end()
                print("")
                lineDone = true
                line = nil
                return
            }
            print("\n(Ctrl-C again to quit, or Ctrl-D)")
        } else {
            interruptsAtEmptyPrompt = 0
            print("^C")
        }
        cdhist_line_restart()
    }

    /// A yes/no question for `purge --execute`.
    private func ask(_ question: String) -> Bool {
        guard let answer = readLine(prompt: question) else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
