import ArgumentParser
import Foundation

/// Runs the command line: usage and file errors print one line on stderr
/// and exit with status 2; help and version exit 0.
@main
enum Entry {
    static func main() {
        // A write past a file-size limit (ulimit -f, what a nearly full disk looks like to a
        // process) returns EFBIG to SQLite and Foundation, which fail cleanly and remove their
        // partial files; the default action of SIGXFSZ would kill the process mid-write.
        signal(SIGXFSZ, SIG_IGN)
        var command: ParsableCommand
        do {
            var arguments = Array(CommandLine.arguments.dropFirst())
            // `cdhist STORE …` is `cdhist repl STORE …`.
            if let first = arguments.first, !first.hasPrefix("-"), first != "help",
               !CDHist.configuration.subcommands.contains(where: { $0.configuration.commandName == first }) {
                arguments.insert(ReplCommand.configuration.commandName ?? "repl", at: 0)
            }
            command = try CDHist.parseAsRoot(arguments)
        } catch {
            exit(reportParserError(error))
        }
        do {
            try command.run()
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch let error where isParserError(error) {
            exit(reportParserError(error))
        } catch {
            printError("cdhist: \(error)")
            exit(2)
        }
    }

    /// Errors raised by ArgumentParser itself (help requests, validation), as opposed to ours.
    static func isParserError(_ error: Error) -> Bool {
        error is CleanExit || error is ValidationError || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }

    /// Prints help to stdout (status 0), or a usage error to stderr (status 2).
    static func reportParserError(_ error: Error) -> Int32 {
        let message = CDHist.fullMessage(for: error)
        if CDHist.exitCode(for: error) == .success {
            print(message)
            return 0
        }
        printError(message)
        return 2
    }
}
