import Foundation
import HistoryKit

/// A file written under a temporary name beside its target and renamed into
/// place when complete, so readers never see half an export; the temporary is
/// removed when the write fails, and when Ctrl-C, SIGTERM or SIGHUP ends the process.
final class AtomicFile {
    let path: String
    let handle: FileHandle
    private let temporary: String
    private var finished = false

    init(_ path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).cdhist-\(getpid()).tmp").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CLIError.cannotWrite(path: path, reason: "cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        self.handle = handle
        TemporaryFileGuard.arm(temporary)
    }

    /// Renames the file into place once `output` (writing to it) is flushed; a failed write
    /// (or flush to the disk) is reported naming the file, and the temporary removed.
    func commit(_ output: Output) throws {
        output.flush()
        do {
            if let failure = output.failure { throw failure }
            try handle.synchronize()
            try handle.close()
        } catch {
            discard()
            throw CLIError.cannotWrite(path: path, reason: WriteFault.cause(error))
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw CLIError.cannotWrite(path: path, reason: reason)
        }
        TemporaryFileGuard.disarm()
        finished = true
    }

    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporary)
        TemporaryFileGuard.disarm()
        finished = true
    }

    deinit { if !finished { discard() } }
}

/// Removes the temporary file of the ``AtomicFile`` being written when a signal
/// would end the process: its handler unlinks the file (a system call, safe in a
/// handler) and ends the process as the signal would have. A signal someone else
/// handles (the REPL's Ctrl-C stops the command, which then discards the file) is left to them.
private enum TemporaryFileGuard {
    nonisolated(unsafe) static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var previous: [Int32: sigaction] = [:]
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    static func arm(_ file: String) {
        disarm()
        path = strdup(file)
        for sig in signals {
            var current = sigaction()
            sigaction(sig, nil, &current)
            guard current.__sigaction_handler.sa_handler == nil else { continue }   // SIG_DFL only
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                if let path = TemporaryFileGuard.path { unlink(path) }
                signal(sig, SIG_DFL)
                raise(sig)
            }
            sigemptyset(&action.sa_mask)
            sigaction(sig, &action, nil)
            previous[sig] = current
            SignalPipe.unblock(sig)
        }
    }

    static func disarm() {
        for (sig, action) in previous {
            var restored = action
            sigaction(sig, &restored, nil)
        }
        previous = [:]
        free(path)
        path = nil
    }
}
