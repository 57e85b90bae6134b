import Foundation
import GRDB
import HistoryReading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a write failed, in the words a user acts on: the disk is full, a
/// file-size limit was reached, an I/O error, no permission.
public enum WriteFault {
    /// Whether SQLite failed writing a file (rather than, say, finding the store locked).
    static func isWriteFailure(_ error: DatabaseError) -> Bool {
        [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN].contains(error.resultCode)
    }

    /// `systemErrno` is the OS error behind an SQLite error (`sqlite3_system_errno`), when known.
    public static func cause(_ error: Error, systemErrno: Int32 = 0) -> String {
        if systemErrno != 0, let words = words(errno: systemErrno) { return words }
        switch error {
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_FULL:
                return "no space left: the disk is full"
                    + (ResourceLimits.fileSize.map { " or the file-size limit of \($0) bytes (ulimit -f) was reached" }
                        ?? "")
            case .SQLITE_IOERR:
                // SQLite reports a write past the file-size limit (EFBIG) as an I/O error, often without its errno.
                if error.extendedResultCode == .SQLITE_IOERR_WRITE, let limit = ResourceLimits.fileSize {
                    return "a write failed: files this process writes are limited to \(limit) bytes (ulimit -f)"
                }
                let limit =
                    ResourceLimits.fileSize.map { "; files this process writes are limited to \($0) bytes (ulimit -f)" }
                    ?? ""
                return "an I/O error (\(error.message ?? "SQLite \(error.extendedResultCode.rawValue)"))\(limit)"
            case .SQLITE_READONLY: return "it is read-only"
            case .SQLITE_PERM, .SQLITE_AUTH: return "permission denied"
            case .SQLITE_CANTOPEN: return "it cannot be opened for writing"
            default: return error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
            }
        case let error as POSIXError:
            return words(errno: error.code.rawValue) ?? error.localizedDescription
        default:
            var nsError = error as NSError
            while nsError.domain != NSPOSIXErrorDomain,
                let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
            {
                nsError = underlying
            }
            if nsError.domain == NSPOSIXErrorDomain, let words = words(errno: Int32(nsError.code)) { return words }
            return (error as NSError).localizedDescription
        }
    }

    private static func words(errno code: Int32) -> String? {
        switch code {
        case 0: return nil
        case EFBIG: return "file too large: a file-size limit (ulimit -f) was reached"
        case ENOSPC: return "no space left on the device"
        case EDQUOT: return "the disk quota is exceeded"
        case EIO: return "an I/O error on the device"
        case EACCES, EPERM: return "permission denied"
        case EROFS: return "the file system is read-only"
        default: return String(cString: strerror(code)).lowercased()
        }
    }
}
