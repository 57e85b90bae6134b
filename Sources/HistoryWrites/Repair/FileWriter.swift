import Foundation
import HistoryReading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a new file with POSIX calls, so a failure keeps its errno
/// (Foundation's `Data.write` reports a full disk or a file-size limit
/// as a generic error 512).
package enum FileWriter {
    /// Creates `path` (which must not exist) holding `data`, flushed to the disk, with the
    /// permissions, owner and group of `like` (a file it copies or replaces) when given.
    /// On failure the file is removed and a `POSIXError` thrown.
    package static func create(_ path: String, contents data: Data, like: FileStatus?) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var failure: Int32 = 0
        if let like {
            // The owner first (only root may give a file away; otherwise it stays this user's), then
            // the exact permissions, whatever the umask.
            _ = fchown(fd, uid_t(like.owner), gid_t(like.group))
            if fchmod(fd, mode_t(like.permissions)) != 0 { failure = errno }
        } else {
            let mask = umask(0)
            umask(mask)
            if fchmod(fd, 0o644 & ~mask) != 0 { failure = errno }
        }
        if failure == 0 {
            data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    offset += n
                }
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure != 0 {
            unlink(path)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
    }

    /// Creates `path` (which must not exist) as a byte-for-byte copy of `source`, read in pieces,
    /// flushed to the disk, with the permissions, owner and group of `like` when given. On
    /// failure the copy is removed and the error thrown.
    package static func copy(_ source: String, to path: String, like: FileStatus?) throws {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT)
        }
        defer { try? input.close() }
        try create(path, contents: Data(), like: like)
        guard let output = FileHandle(forWritingAtPath: path) else {
            unlink(path)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        do {
            defer { try? output.close() }
            while let piece = try input.read(upToCount: 1 << 20), !piece.isEmpty { try output.write(contentsOf: piece) }
            try output.synchronize()
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Flushes a folder's entries (names created, renamed or removed in it) to the disk.
    package static func syncFolder(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }
}
