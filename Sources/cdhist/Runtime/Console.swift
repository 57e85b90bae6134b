import Foundation
import HistoryKit

/// Where a command writes and what environment it reads: this process's standard output,
/// standard error and environment, or, for a command run inside another program (a test),
/// files and an environment of its own. A run is given one (``Entry/run(_:console:)``), and
/// hands it to its command in the command's ``CommandContext``.
public struct Console: @unchecked Sendable {
    // @unchecked: FileHandle is a class Foundation does not mark Sendable on every platform;
    // a console's handles are only written through, each write whole, as the process's are.
    public var standardOutput: FileHandle
    public var standardError: FileHandle
    public var environment: [String: String]
    /// This process's own streams: a failed write to standard output ends the process.
    let isProcess: Bool

    /// A console of the given handles and environment (a command's output goes to them).
    public init(standardOutput: FileHandle, standardError: FileHandle, environment: [String: String]) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.environment = environment
        isProcess = false
    }

    private init(process: ()) {
        standardOutput = .standardOutput
        standardError = .standardError
        environment = ProcessInfo.processInfo.environment
        isProcess = true
    }

    /// This process's standard streams and environment.
    public static let process = Console(process: ())

    /// Writes one line to standard error. A control character in it (a store's string, a path
    /// with a line break) is shown visibly (``TerminalText``): the message stays one line and
    /// sends nothing to the terminal.
    func printError(_ message: String) {
        // Never a trap: with stderr unwritable there is no one left to tell.
        try? standardError.write(contentsOf: Data((TerminalText.visible(message) + "\n").utf8))
    }

    /// Says on stderr what opening a store found: a warning when the store read is not all its
    /// files hold, else a note.
    func printNotice(_ notice: StoreNotice) {
        printError("cdhist: \(notice.isWarning ? "warning" : "note"): \(notice.message.text)")
    }
}
