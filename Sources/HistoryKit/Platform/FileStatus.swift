import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// What `stat` says of a file: which file it is, its size, and when it was last written, to
/// the nanosecond (FileManager's attributes give the time as a Date, rounded to microseconds).
struct FileStatus: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedNanoseconds: Int64

    init?(_ path: String) {
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
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec)
    }
}
