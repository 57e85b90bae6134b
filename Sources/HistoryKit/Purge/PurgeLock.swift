import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Held by a purge from before it opens the store until it is done, so that a second
/// cdhist purging the same store is refused at once, before it writes a backup, with a
/// message that says who holds it. An advisory lock (`flock`) on `<store>.cdhist-purging`
/// beside the store: created for the purge, naming its process, and removed after it. A
/// file whose lock nobody holds was left by a purge that was killed, and is taken over.
/// (Never a lock on the store's own files: closing a descriptor of a file drops the
/// process's SQLite locks on it.)
final class PurgeLock {
    /// What a purge leaves beside the store only while it runs.
    static let suffix = ".cdhist-purging"

    private let file: String
    private var fd: Int32
    /// Whether a killed purge's lock file was there (taken over).
    let foundStale: Bool

    /// Takes the lock of the store at `location` (its real path); `path` names it in errors.
    init(location: String, path: String) throws {
        let file = location + Self.suffix
        var stale = false
        while true {
            let fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw RepairError.readOnly(path: path, reason: "creating \(file): \(FileAccess.reason(errno: errno))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno
                let holder = Self.holder(fd)
                close(fd)
                if failure == EWOULDBLOCK { throw RepairError.purgeRunning(path: path, holder: holder) }
                throw RepairError.readOnly(path: path, reason: "locking \(file): \(FileAccess.reason(errno: failure))")
            }
            // The file may have been removed by the purge that held it before this one got its lock:
            // then the lock is on a file nobody else sees, and the name is taken again.
            var opened = stat(), named = stat()
            guard fstat(fd, &opened) == 0, lstat(file, &named) == 0, opened.st_ino == named.st_ino, opened.st_dev == named.st_dev else {
                close(fd)
                continue
            }
            stale = opened.st_size > 0
            let note = "process \(getpid()), since \(ISO8601DateFormatter().string(from: Date()))\n"
            _ = ftruncate(fd, 0)
            _ = note.withCString { pwrite(fd, $0, strlen($0), 0) }
            self.file = file
            self.fd = fd
            foundStale = stale
            return
        }
    }

    /// Removes the file and lets go of the lock (the file first: a purge waiting on it then
    /// takes the name afresh).
    func release() {
        guard fd >= 0 else { return }
        unlink(file)
        close(fd)
        fd = -1
    }

    deinit { release() }

    /// What the lock file says of the purge holding it.
    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return "another cdhist" }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "another cdhist" : text
    }
}
