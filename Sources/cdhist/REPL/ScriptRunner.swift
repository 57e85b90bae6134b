import ArgumentParser
import Foundation

/// Runs commands without prompt or readline: `-c` arguments or lines on stdin.
/// The first failing command stops the script (exit status 2, its line number
/// on stderr) unless `keepGoing`.
struct ScriptRunner {
    let runner: LineRunner
    let keepGoing: Bool

    /// Runs `lines` (numbered from 1) and returns the exit status.
    func run(_ lines: [String]) -> Int32 {
        var failed = false
        for (index, line) in lines.enumerated() {
            do {
                if try runner.run(line) == .quit { break }
            } catch {
                failed = true
                runner.env.console.printError("cdhist: line \(index + 1): \(ScriptRunner.message(for: error))")
                if !keepGoing { return 2 }
            }
        }
        return failed ? 2 : 0
    }

    /// One line describing `error`, whether ArgumentParser's or ours.
    static func message(for error: Error) -> String {
        if let exit = error as? ExitCode { return "exit status \(exit.rawValue)" }
        if Entry.isParserError(error) {
            let text = CDHist.message(for: error)
            return text.split(separator: "\n").first.map(String.init) ?? text
        }
        return describe(error)
    }
}
