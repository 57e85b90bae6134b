import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// What `stat` says of a file (after following links): which file it is, what kind, its
/// permissions, its size, and when it was last written, to the nanosecond (FileManager's
/// attributes give the time as a Date, rounded to microseconds).
public struct FileStatus: Equatable, Sendable {
    /// What kind of file it is.
    public enum Kind: Equatable, Sendable, CustomStringConvertible {
        case regular, directory, characterDevice, blockDevice, fifo, socket, other

        public var description: String {
            switch self {
            case .regular: return "a regular file"
            case .directory: return "a folder"
            case .characterDevice: return "a character device"
            case .blockDevice: return "a block device"
            case .fifo: return "a FIFO (named pipe)"
            case .socket: return "a socket"
            case .other: return "a special file"
            }
        }
    }

    public var device: UInt64
    public var inode: UInt64
    public var kind: Kind
    /// The permission bits (`0o7777`).
    public var permissions: UInt32
    public var owner: UInt32
    public var group: UInt32
    public var size: Int64
    public var modifiedNanoseconds: Int64

    /// The status of the file `path` names, following links; nil when there is none.
    public init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            // Darwin's <sys/stat.h>: `struct timespec st_mtimespec` (st_mtime is a macro for its seconds).
            let modified = info.st_mtimespec
        #else
            // glibc's <bits/stat.h>: `struct timespec st_mtim`.
            let modified = info.st_mtim
        #endif
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        let mode = UInt32(info.st_mode)
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): kind = .regular
        case UInt32(S_IFDIR): kind = .directory
        case UInt32(S_IFCHR): kind = .characterDevice
        case UInt32(S_IFBLK): kind = .blockDevice
        case UInt32(S_IFIFO): kind = .fifo
        case UInt32(S_IFSOCK): kind = .socket
        default: kind = .other
        }
        permissions = mode & 0o7777
        owner = UInt32(info.st_uid)
        group = UInt32(info.st_gid)
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec)
    }

    /// Whether `other` is the same file (device and inode), whatever names reach them.
    public func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }

    /// Whether `a` and `b` name one file: the same path once links and `..` are resolved (neither
    /// need exist), or the same device and inode (a hard link).
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        if resolvedPath(a) == resolvedPath(b) { return true }
        guard let x = FileStatus(a), let y = FileStatus(b) else { return false }
        return x.isSameFile(as: y)
    }

    /// `path` made absolute, with every link followed and `.` and `..` resolved, component
    /// by component as the system resolves a path: a link's text replaces it (from `/`, or
    /// from the link's folder), a chain of links is followed to its end even when the last
    /// names nothing (a dangling link resolves to where it points), and `..` goes up from
    /// where the links before it led. Components that do not exist are kept as written. After
    /// 40 links (the system's own limit) the rest is taken as written.
    public static func resolvedPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var pending = Array(absolute.split(separator: "/", omittingEmptySubsequences: true).reversed())
        var resolved: [Substring] = []
        var links = 0
        while let part = pending.popLast() {
            if part == "." { continue }
            if part == ".." {
                _ = resolved.popLast()
                continue
            }
            let candidate = "/" + (resolved + [part]).joined(separator: "/")
            guard links < 40, let text = linkText(candidate) else {
                resolved.append(part)
                continue
            }
            links += 1
            if text.hasPrefix("/") { resolved = [] }
            pending.append(contentsOf: text.split(separator: "/", omittingEmptySubsequences: true).reversed())
        }
        return "/" + resolved.joined(separator: "/")
    }

    /// What the link `path` holds; nil when `path` is not a link.
    private static func linkText(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
