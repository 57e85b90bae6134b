import ArgumentParser
import Foundation
import HistoryKit

/// Runs the command line: usage and file errors print one line on stderr
/// and exit with status 2; help and version exit 0.
public enum Entry {
    /// Runs the process's arguments and ends the process with the command's status.
    public static func main() -> Never {
        // A write past a file-size limit (ulimit -f, what a nearly full disk looks like to a
        // process) returns EFBIG to SQLite and Foundation, which fail cleanly and remove their
        // partial files; the default action of SIGXFSZ would kill the process mid-write.
        signal(SIGXFSZ, SIG_IGN)
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs `arguments` (without the program's name) as the command line would, writing to
    /// `console`, and returns the exit status.
    public static func run(_ arguments: [String], console: Console = .process) -> Int32 {
        var arguments = arguments
        let commands = CDHist.configuration.subcommands.compactMap { $0.configuration.commandName }
        // `cdhist STORE …` is `cdhist repl STORE …`; a word that names no file and is like a command is a typo.
        if let first = arguments.first, !first.hasPrefix("-"), first != "help", !commands.contains(first) {
            if let typo = unknownCommand(first, commands: commands) {
                console.printError(typo)
                return 2
            }
            arguments.insert(ReplCommand.configuration.commandName ?? "repl", at: 0)
        }
        if arguments.count == 2, arguments[0] == "--generate-completion-script",
            let script = CompletionScript.text(arguments[1])
        {
            console.standardOutput.write(Data(script.utf8))
            return 0
        }
        let command: ParsableCommand
        do {
            arguments = try BootedOption.resolve(arguments)
        } catch let error where !isParserError(error) {
            console.printError("cdhist: \(describe(error))")
            return 2
        } catch {
            return reportParserError(error, console: console)
        }
        do {
            command = try CDHist.parseAsRoot(arguments)
        } catch {
            return reportParserError(error, console: console)
        }
        // Checked when a command runs (help and the version are given whatever it says).
        do {
            _ = try OutputFormat.fromEnvironment(console.environment)
        } catch {
            console.printError("cdhist: \(describe(error))")
            return 2
        }
        return status(running: command, console: console)
    }

    /// Runs `command` on `console` and returns its exit status, having reported its error on it.
    /// The error is released before the process exits (LeakSanitizer cannot follow the pointers
    /// an enum's spare bits tag, and would report an error still held at exit as a leak).
    static func status(running command: ParsableCommand, console: Console) -> Int32 {
        var command = command
        do {
            if let command = command as? any HistoryCommand {
                try command.run(CommandContext(console: console))
            } else {
                try command.run()
            }
            return 0
        } catch let error as ExitCode {
            return error.rawValue
        } catch let error where isParserError(error) {
            return reportParserError(error, console: console)
        } catch {
            console.printError("cdhist: \(describe(error))")
            return 2
        }
    }

    /// The error for a first word that names no file and is like a command (`chek`); nil otherwise.
    static func unknownCommand(_ word: String, commands: [String]) -> String? {
        guard !FileManager.default.fileExists(atPath: word) else { return nil }
        let close = NameSuggestion.closest(to: word, among: commands).map(\.name)
        guard let best = close.first else { return nil }
        return "cdhist: unknown command '\(word)'; did you mean '\(best)'? (cdhist --help lists the commands)"
    }

    /// Errors raised by ArgumentParser itself (help requests, validation), as opposed to ours.
    static func isParserError(_ error: Error) -> Bool {
        error is CleanExit || error is ValidationError
            || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }

    /// Prints help to `console`'s stdout (status 0), or a usage error to its stderr (status 2).
    static func reportParserError(_ error: Error, console: Console) -> Int32 {
        let message = CDHist.fullMessage(for: error)
        if CDHist.exitCode(for: error) == .success {
            let output = Output(console: console)
            output.line(message)
            output.flush()
            return 0
        }
        // ArgumentParser's message is several lines (the error, then the usage).
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            console.printError(String(line))
        }
        return 2
    }
}
