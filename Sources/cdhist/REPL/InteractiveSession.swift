import CReadline
import Foundation
import HistoryKit

/// The interactive REPL: GNU Readline (editing, Ctrl-R, history file, tab
/// completion), Ctrl-C to interrupt a command (twice at an empty prompt to
/// leave), Ctrl-D to leave, long output through `$PAGER`.
///
/// Readline's callbacks are C functions, so the running session is reached
/// through ``active``; there is only ever one.
final class InteractiveSession {
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
        env.terminal = Terminal.current(noColor: false)
        env.confirm = { [weak self] question in self?.ask(question) ?? false }
        stifle_history(Self.historyLimit)
        _ = read_history(historyPath)
        rl_readline_name = UnsafePointer(strdup("cdhist"))
        rl_catch_signals = 0
        // Ctrl-L clears the screen (readline's own binding, made sure of).
        rl_bind_key(12, rl_clear_screen)
        rl_attempted_completion_function = { text, start, end in
            InteractiveSession.active?.completer.complete(text: text.map { String(cString: $0) } ?? "", start: Int(start))
        }
        signals.install { [weak self] in self?.interruptRunningCommand() ?? false }
        print("cdhist \(CDHist.version) — type help for commands, Ctrl-D to quit")
        do {
            _ = try env.openStore()
        } catch {
            printError("cdhist: \(error)")
            return 2
        }
        while let text = readLine(prompt: prompt()) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            add_history(text)
            if FileManager.default.fileExists(atPath: historyPath) {
                _ = append_history(1, historyPath)
            } else {
                _ = write_history(historyPath)
            }
            if execute(text) == .quit { break }
        }
        _ = history_truncate_file(historyPath, Self.historyLimit)
        signals.uninstall()
        return 0
    }

    private func prompt() -> String {
        let name = URL(fileURLWithPath: env.storePath).lastPathComponent
        let count = (try? env.openStore().transactionCount()).map { " (\($0) transactions)" } ?? ""
        return "\(name)\(count)> "
    }

    /// Runs a line, through the pager when it prints a table to the terminal.
    private func execute(_ text: String) -> LineRunner.Outcome {
        runningLock.withLock { running = true }
        defer { runningLock.withLock { running = false } }
        let pager = Pager.command(for: text)
        do {
            if let pager {
                return try Pager.run(pager) { try runner.run(text) }
            }
            return try runner.run(text)
        } catch {
            fflush(stdout)
            printError("cdhist: \(ScriptRunner.message(for: error))")
            return .done
        }
    }

    /// Called from the signal thread on Ctrl-C: interrupts a running command, or
    /// returns false so the prompt handles it.
    private func interruptRunningCommand() -> Bool {
        // Under the lock, so the command cannot end (and the next one start) in between.
        runningLock.withLock {
            guard running else { return false }
            env.interrupt()
            return true
        }
    }

    /// Reads one line with readline's callback interface, so Ctrl-C can be handled at the prompt.
    private func readLine(prompt: String) -> String? {
        lineDone = false
        line = nil
        rl_callback_handler_install(prompt) { raw in
            guard let session = InteractiveSession.active else { return }
            session.line = raw.map { String(cString: $0) }
            session.lineDone = true
            if let raw { free(raw) }
            rl_callback_handler_remove()
        }
        while !lineDone {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signals.promptFD, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
            if fds[1].revents & Int16(POLLIN) != 0 {
                signals.drainPrompt()
                handleInterruptAtPrompt()
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 {
                rl_callback_read_char()
            }
        }
        if line == nil { print("") } // Ctrl-D: end the prompt's line
        if let text = line, !text.trimmingCharacters(in: .whitespaces).isEmpty { interruptsAtEmptyPrompt = 0 }
        return line
    }

    /// Ctrl-C at the prompt clears the line; twice on an empty line leaves.
    private func handleInterruptAtPrompt() {
        let current = rl_line_buffer.map { String(cString: $0) } ?? ""
        if current.isEmpty {
            interruptsAtEmptyPrompt += 1
            if interruptsAtEmptyPrompt >= 2 {
                rl_callback_handler_remove()
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
        rl_replace_line("", 0)
        rl_on_new_line()
        rl_redisplay()
    }

    /// A yes/no question for `purge --execute`.
    private func ask(_ question: String) -> Bool {
        guard let answer = readLine(prompt: question) else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
