import Foundation

/// What `stat` says of a store's main file and `-wal`: which file it is
/// (device and inode), how long, when last written. A commit changes the
/// `-wal` (WAL mode) or the main file (rollback journal); a checkpoint writes
/// the main file; replacing the store changes its inode. Reading it costs two
/// system calls and touches nothing.
struct StoreFileState: Equatable {
    struct File: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        /// Last modification, in nanoseconds.
        var modified: Int64
    }

    var main: File
    var wal: File?

    /// The state of the files of the store at `path`; nil when the main file is gone.
    static func read(_ path: String) -> StoreFileState? {
        guard let main = file(path) else { return nil }
        return StoreFileState(main: main, wal: file(path + "-wal"))
    }

    private static func file(_ path: String) -> File? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return File(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: modified)
    }

    /// Whether `other` is the same main file (not one put in its place).
    func isSameFile(as other: StoreFileState) -> Bool {
        main.device == other.main.device && main.inode == other.main.inode
    }
}
