import Foundation
import HistoryKit

/// Where `--out` writes. A regular file (or a new one) is written under a temporary name
/// beside it and renamed into place when complete, so readers never see half an export;
/// the temporary takes the replaced file's permissions and owner, and is removed when the
/// write fails, and when Ctrl-C, SIGTERM or SIGHUP ends the process. A character device,
/// a FIFO or a socket (`/dev/null`, `/dev/stdout`, a named pipe) is written through, never
/// replaced; through a link, the file it names is replaced (or created). A file the command
/// reads (the store, its `-wal`, `-shm` and `-journal`, whether they exist yet or not, and the
/// merge-state files, model and config given) is refused under any name: through a chain of
/// links, dangling or not, through `..`, or as a hard link.
final class OutputFile {
    let path: String
    /// The file replaced: `path`, or the file a link at `path` names (the link is kept).
    private let target: String
    let handle: FileHandle
    /// The temporary renamed over `path` on commit; nil when writing through a device or pipe.
    private let temporary: String?
    private var finished = false

    /// Opens `path` for writing, refusing it when it is one of `inputs` (files the command
    /// reads; for a store, name its companions too: ``storeFiles(_:)``) or a folder.
    init(_ path: String, reading inputs: [String]) throws {
        self.path = path
        try Self.refuseToReplace(path, inputs: inputs)
        let existing = FileStatus(path)
        // Through a link (even one that names nothing yet), the file it leads to.
        target = FileStatus.resolvedPath(path)
        switch existing?.kind {
        case .directory?:
            throw CLIError.cannotWrite(path: path, reason: "it is a folder")
        case .characterDevice?, .fifo?, .socket?:
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CLIError.cannotWrite(path: path, reason: FileAccess.reason(errno: errno)) }
            handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            temporary = nil
        default:
            let url = URL(fileURLWithPath: target)
            let temporary = url.deletingLastPathComponent().appendingPathComponent(
                ".\(url.lastPathComponent).cdhist-\(getpid()).tmp"
            ).path
            // The guard's watches are set up before the file exists, and the file is created under
            // the guard's lock: a signal at any moment finds either no file or one it removes.
            guard
                let handle = TemporaryFileGuard.create(temporary, permissions: existing.map { mode_t($0.permissions) })
            else {
                throw CLIError.cannotWrite(
                    path: path, reason: "cannot create a file in \(url.deletingLastPathComponent().path)")
            }
            // The replaced file's owner, when this process may give it (as root); else the file is ours.
            if let existing, existing.kind == .regular {
                _ = fchown(handle.fileDescriptor, uid_t(existing.owner), gid_t(existing.group))
            }
            self.handle = handle
            self.temporary = temporary
        }
    }

    /// A store's file and the files SQLite keeps beside it (beside the file a link names).
    static func storeFiles(_ store: String) -> [String] {
        [store] + StoreFiles.paths(of: store)
    }

    /// Refuses a `target` that is one of `inputs`, by name (through links and `..`) or by
    /// being the same file under another name: writing it would replace what is read.
    static func refuseToReplace(_ target: String, inputs: [String]) throws {
        for input in inputs where FileStatus.sameFile(target, input) {
            let sameName = FileStatus.resolvedPath(target) == FileStatus.resolvedPath(input)
            throw CLIError.cannotWrite(
                path: target,
                reason: sameName
                    ? "this command reads it" : "it is \(input) under another name, which this command reads")
        }
    }

    /// Writes `text` whole into `path` as ``init(_:reading:)`` and ``commit(_:)`` do: never over
    /// one of `inputs`, the file appearing only once it is complete.
    static func write(_ text: String, to path: String, reading inputs: [String]) throws {
        let file = try OutputFile(path, reading: inputs)
        let output = Output(handle: file.handle)
        output.write(text)
        try file.commit(output)
    }

    /// Renames the file into place once `output` (writing to it) is flushed; a failed write
    /// (or flush to the disk) is reported naming the file, and the temporary removed.
    func commit(_ output: Output) throws {
        output.flush()
        do {
            if let failure = output.failure { throw failure }
            // A device or pipe has nothing to synchronize (fsync fails with EINVAL there).
            if temporary != nil { try handle.synchronize() }
            try handle.close()
        } catch {
            discard()
            throw CLIError.cannotWrite(path: path, reason: WriteFault.cause(error))
        }
        guard let temporary else {
            finished = true
            return
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw CLIError.cannotWrite(path: path, reason: reason)
        }
        TemporaryFileGuard.disarm()
        finished = true
    }

    func discard() {
        try? handle.close()
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
        TemporaryFileGuard.disarm()
        finished = true
    }

    deinit { if !finished { discard() } }
}

/// Removes the temporary file of the ``OutputFile`` being written when a signal
/// would end the process, then ends it as the signal would have. A signal someone else
/// handles (the REPL's Ctrl-C stops the command, which then discards the file) is left to them.
private enum TemporaryFileGuard {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private static let lock = NSLock()
    /// Safe unchecked: read and written only under `lock` (the signal's handler takes it too).
    nonisolated(unsafe) private static var path: String?
    /// The signals whose default action this process has taken over, each watched until it
    /// ends (a signal that comes while no file is being written ends it all the same).
    /// Safe unchecked: read and written only under `lock`.
    nonisolated(unsafe) private static var watches: [Int32: SignalWatch] = [:]

    /// Creates `file` (only if it does not exist: O_EXCL), guarded from then on; nil when it cannot.
    /// A new file gets the umask's permissions; a replacement (`permissions` given) exactly those.
    static func create(_ file: String, permissions: mode_t?) -> FileHandle? {
        lock.withLock {
            for sig in signals where watches[sig] == nil && SignalWatch.hasDefaultAction(sig) {
                watches[sig] = SignalWatch(sig) {
                    // Held until the process ends: no file is created between the unlink and the end.
                    lock.lock()
                    if let path = TemporaryFileGuard.path { unlink(path) }
                    SignalWatch.endProcess(with: sig)
                }
            }
            let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions ?? 0o644)
            guard fd >= 0 else { return nil }
            if let permissions { _ = fchmod(fd, permissions) }
            path = file
            return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        }
    }

    static func disarm() {
        lock.withLock { path = nil }
    }
}
