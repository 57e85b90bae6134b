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
        // The guard's watches are set up before the file exists, and the file is created under
        // the guard's lock: a signal at any moment finds either no file or one it removes.
        guard let handle = TemporaryFileGuard.create(temporary) else {
            throw CLIError.cannotWrite(path: path, reason: "cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        self.handle = handle
    }

    /// Refuses a `target` that is one of `inputs` (through links too): writing it would replace what is read.
    static func refuseToReplace(_ target: String, inputs: [String], reason: String) throws {
        let resolved = URL(fileURLWithPath: target).resolvingSymlinksInPath().standardizedFileURL.path
        for input in inputs where URL(fileURLWithPath: input).resolvingSymlinksInPath().standardizedFileURL.path == resolved {
            throw CLIError.cannotWrite(path: target, reason: reason)
        }
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
/// would end the process, then ends it as the signal would have. A signal someone else
/// handles (the REPL's Ctrl-C stops the command, which then discards the file) is left to them.
private enum TemporaryFileGuard {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private static let lock = NSLock()
    nonisolated(unsafe) private static var path: String?
    /// The signals whose default action this process has taken over, each watched until it
    /// ends (a signal that comes while no file is being written ends it all the same).
    nonisolated(unsafe) private static var watches: [Int32: SignalWatch] = [:]

    /// Creates `file` (only if it does not exist: O_EXCL), guarded from then on; nil when it cannot.
    static func create(_ file: String) -> FileHandle? {
        lock.withLock {
            for sig in signals where watches[sig] == nil && SignalWatch.hasDefaultAction(sig) {
                watches[sig] = SignalWatch(sig) {
                    // Held until the process ends: no file is created between the unlink and the end.
                    lock.lock()
                    if let path = TemporaryFileGuard.path { unlink(path) }
                    SignalWatch.endProcess(with: sig)
                }
            }
            let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return nil }
            path = file
            return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        }
    }

    static func disarm() {
        lock.withLock { path = nil }
    }
}
