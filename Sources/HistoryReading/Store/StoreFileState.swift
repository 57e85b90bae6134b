import Foundation

/// What `stat` says of a store's main file and `-wal` (which file it is,
/// how long, when last written) and the header of the WAL index in `-shm`.
/// A commit writes its frames to the `-wal`, then counts itself in the index
/// header, which makes it visible: a reader that looked between the two sees
/// the frames but not the transaction, so the header is part of the state
/// (else that commit would show only with the next). In rollback-journal mode
/// a commit writes the main file; a checkpoint writes the main file;
/// replacing the store changes its inode. Reading it costs a few system calls,
/// takes no lock and touches nothing. Read the index header only while this
/// process holds no connection on the store: closing a descriptor of `-shm`
/// releases every POSIX lock the process holds on it, SQLite's own included.
package struct StoreFileState: Equatable {
    package struct File: Equatable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        /// Last modification, in nanoseconds.
        package var modified: Int64
    }

    package var main: File
    package var wal: File?
    /// The first 48 bytes of `-shm`: the WAL index header (its change counter, last frame, salts).
    var walIndexHeader: [UInt8]?

    /// The state of the files of the store at `path`; nil when the main file is gone.
    /// `walIndex`: read the WAL index header too (see above).
    package static func read(_ path: String, walIndex: Bool = true) -> StoreFileState? {
        guard let main = file(path) else { return nil }
        return StoreFileState(
            main: main, wal: file(path + "-wal"), walIndexHeader: walIndex ? header(path + "-shm") : nil)
    }

    private static func header(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 48)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 48, 0) }
        return count > 0 ? Array(bytes.prefix(count)) : []
    }

    private static func file(_ path: String) -> File? {
        guard let status = FileStatus(path) else { return nil }
        return File(device: status.device, inode: status.inode, size: status.size, modified: status.modifiedNanoseconds)
    }

    /// Whether `other` is the same main file (not one put in its place).
    package func isSameFile(as other: StoreFileState) -> Bool {
        main.device == other.main.device && main.inode == other.main.inode
    }
}
