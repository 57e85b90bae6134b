import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a repair keeps the original: `<file>.cdhist-backup-<yyyyMMdd-HHmmss>` (UTC)
/// beside it, or the same with `-2`, `-3`… when that name is taken, so a second repair
/// in the same second never writes over, or removes, the first one's backup.
public enum BackupName {
    /// What a default backup's name starts with, after the file's name.
    static let marker = ".cdhist-backup-"

    /// The first free default name for `path`'s backup (neither it nor its `.partial` exists).
    public static func beside(_ path: String, date: Date = Date()) -> String {
        let base = path + marker + stamp(date)
        var candidate = base
        var n = 2
        while exists(candidate) || exists(candidate + ".partial") {
            candidate = "\(base)-\(n)"
            n += 1
        }
        return candidate
    }

    /// Gives the complete file `temporary` the name `backup`, never over a file there:
    /// when the name was taken since it was chosen, the next free name with `nextFree`
    /// (a default name), else `EEXIST`. Returns the name given. A hard link claims the
    /// name atomically; a file system without them (FAT) gets a rename after a check.
    static func place(_ temporary: String, at backup: String, nextFree: Bool) throws -> String {
        var name = backup
        for n in 2... {
            let claimed: Bool
            if link(temporary, name) == 0 {
                unlink(temporary)
                return name
            }
            switch errno {
            case EEXIST: claimed = true
            case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV, EMLINK: claimed = exists(name)
            case let failure: throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
            }
            if !claimed {
                guard rename(temporary, name) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                return name
            }
            guard nextFree else { throw POSIXError(.EEXIST) }
            name = "\(backup)-\(n)"
        }
        throw POSIXError(.EEXIST)
    }

    private static func stamp(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return f.string(from: date)
    }

    /// Whether anything is at `path`, a dangling link included.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
