import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Why a file cannot be read, in words a user can act on. The systems differ in one case:
/// macOS's privacy protection answers EPERM ("Operation not permitted") to a process whose
/// terminal lacks Full Disk Access when it opens another app's data (`~/Library/Containers`
/// since macOS 14, `~/Library/Group Containers` since macOS 15, and Desktop, Documents,
/// Downloads), where permissions alone would allow it; on Linux EPERM is rare (an
/// immutable file, a security module).
public enum FileAccess {
    /// Why `path` cannot be opened for reading; nil when it can.
    public static func whyUnreadable(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd < 0 else {
            close(fd)
            return nil
        }
        return reason(errno: errno)
    }

    /// `code` (an errno of open or read) in words.
    public static func reason(errno code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES: return "permission denied"
        case EPERM:
            #if os(macOS)
                return "operation not permitted: macOS privacy protection keeps other apps' data from programs "
                    + "the terminal runs; give the terminal Full Disk Access (System Settings > Privacy & Security > "
                        + """
                        Full Disk Access) and open a new terminal window, or copy the file (a store with its -wal and \
                        -shm) 
                        """
                    + "into a folder of your own first"
            #else
                return "operation not permitted"
            #endif
        default: return String(cString: strerror(code)).lowercased()
        }
    }
}
