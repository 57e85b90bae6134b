import Foundation
import HistoryKit

/// Buffered writing to stdout (or a file), flushed in large chunks.
final class Output {
    private let handle: FileHandle
    private let isStandardOutput: Bool
    private var buffer: [UInt8] = []
    private let flushThreshold = 64 << 10
    /// The first write that failed (a full disk, a file-size limit); later writes are dropped.
    private(set) var failure: Error?
    /// What a closed standard output means while a session pages a command's output: the
    /// pager was quit, so later writes are dropped and this is called (it stops the command).
    /// Without it, a reader that went away (`| head`) ends the process quietly.
    /// Safe unchecked: set and cleared by the session's thread around a paged command, which
    /// writes its output (and so reads this) on that same thread.
    nonisolated(unsafe) static var closedStandardOutput: (() -> Void)?

    /// Output to the console's standard output: a failed write (not a closed pipe) prints its
    /// cause and, on this process's own, exits with status 2.
    init() {
        handle = Console.current.standardOutput
        isStandardOutput = Console.current.isProcess
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Output to a file: a failed write is kept in ``failure`` for the file's owner to report.
    init(handle: FileHandle) {
        self.handle = handle
        isStandardOutput = false
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    func write(_ text: String) {
        buffer += text.utf8
        if buffer.count >= flushThreshold { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer += bytes
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes `bytes` and empties them once they are many (a record too large to hold
    /// whole, written in pieces), or leaves them to grow.
    func spill(_ bytes: inout [UInt8]) {
        guard bytes.count >= OrderedOutput.writeThreshold else { return }
        write(bytes: bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    func line(_ text: String = "") {
        write(text)
        buffer.append(0x0A)
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        if failure == nil {
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                failure = error
                if isStandardOutput {
                    // A reader that went away (| head) is no error; anything else is.
                    if ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(EPIPE) {
                        guard let closed = Output.closedStandardOutput else { exit(0) }
                        closed()
                        buffer.removeAll(keepingCapacity: true)
                        return
                    }
                    printError("cdhist: standard output: \(WriteFault.cause(error))")
                    exit(2)
                }
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Writes one line to stderr. A control character in it (a store's string, a path with a
/// line break) is shown visibly (``TerminalText``): the message stays one line and sends
/// nothing to the terminal.
func printError(_ message: String) {
    // Never a trap: with stderr unwritable there is no one left to tell.
    try? Console.current.standardError.write(contentsOf: Data((TerminalText.visible(message) + "\n").utf8))
}
