import Foundation
import HistoryReading

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
    /// On a file system without `flock` (some network mounts) the purge goes on unlocked, as
    /// SQLite's own locks still keep two writers apart.
    init(location: String, path: String) throws {
        let file = location + Self.suffix
        self.file = file
        // A name removed between opening and locking (the holder finished) is taken again, a few times.
        for _ in 0..<8 {
            var created = true
            var fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd < 0 && errno == EEXIST {
                created = false
                fd = open(file, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            }
            guard fd >= 0 else {
                if errno == ENOENT { continue }
                throw RepairError.readOnly(path: path, reason: "creating \(file): \(FileAccess.reason(errno: errno))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno
                let holder = Self.holder(fd)
                if created { unlink(file) }
                close(fd)
                if failure == EWOULDBLOCK { throw RepairError.purgeRunning(path: path, holder: holder) }
                // No flock here: unlocked, and no file left.
                (self.fd, foundStale) = (-1, false)
                return
            }
            guard Self.isNamed(file, fd) else {
                close(fd)
                continue
            }
            foundStale = !created
            let note = "process \(getpid()), since \(ISO8601DateFormatter().string(from: Date()))\n"
            _ = ftruncate(fd, 0)
            _ = note.withCString { pwrite(fd, $0, strlen($0), 0) }
            self.fd = fd
            return
        }
        throw RepairError.readOnly(path: path, reason: "\(file) keeps being replaced while it is locked")
    }

    /// Removes the file, when it is still this lock's, and lets go of the lock (the file first:
    /// a purge waiting on it then takes the name afresh).
    func release() {
        guard fd >= 0 else { return }
        if Self.isNamed(file, fd) { unlink(file) }
        close(fd)
        fd = -1
    }

    deinit { release() }

    /// Whether `file` names the file `fd` has open.
    private static func isNamed(_ file: String, _ fd: Int32) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(fd, &opened) == 0 && lstat(file, &named) == 0 && opened.st_ino == named.st_ino
            && opened.st_dev == named.st_dev
    }

    /// What the lock file says of the purge holding it.
    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return "another cdhist" }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "another cdhist" : text
    }
}
