import Foundation

/// A yes/no question asked on the terminal a one-shot command was typed in.
enum TerminalQuestion {
    /// Whether there is a terminal to ask on: stdin and stderr are one, and `console` is this
    /// process's (not another program's, which runs the command inside it).
    static func available(on console: Console) -> Bool {
        console.isProcess && isatty(STDIN_FILENO) == 1 && isatty(console.standardError.fileDescriptor) == 1
    }

    /// Asks `question` on stderr and reads the answer from stdin: true for `y` or `yes`; nil when
    /// there is no terminal to ask on (stdin or stderr is a pipe or a file, or the command runs
    /// inside another program's console).
    static func ask(_ question: String, on console: Console) -> Bool? {
        guard available(on: console) else { return nil }
        console.standardError.write(Data(question.utf8))
        guard let answer = readLine(strippingNewline: true) else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
