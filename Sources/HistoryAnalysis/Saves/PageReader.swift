import Foundation
import HistoryReading

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The pages of a store at one state of its `-wal`: each page from the latest frame that holds
/// it through the commits applied so far, else from the main file. It starts at the main file
/// alone and moves forward one commit at a time (``apply(_:)``). Both files are only read.
final class PageReader {
    let pageSize: Int
    /// Bytes of a page SQLite uses (the page size less the reserved bytes at each page's end).
    let usableSize: Int
    let log: WALLog
    private let mainFD: Int32
    private let walFD: Int32
    /// The frame each page is read from at this state; a page not here is the main file's.
    private(set) var latest: [UInt32: Int] = [:]
    /// The highest page number any state has: the main file's pages, or a commit's database size.
    let pageLimit: UInt32
    /// Bytes of both files: no record is larger.
    let fileBytes: Int

    init(mainPath: String, log: WALLog) throws {
        let main = open(mainPath, O_RDONLY | O_CLOEXEC)
        guard main >= 0 else { throw WALError.unreadable(path: mainPath, reason: FileAccess.reason(errno: errno)) }
        let wal = open(log.path, O_RDONLY | O_CLOEXEC)
        guard wal >= 0 else {
            let why = FileAccess.reason(errno: errno)
            close(main)
            throw WALError.unreadable(path: log.path, reason: why)
        }
        var header = [UInt8](repeating: 0, count: 100)
        let n = header.withUnsafeMutableBytes { pread(main, $0.baseAddress, 100, 0) }
        mainFD = main
        walFD = wal
        self.log = log
        pageSize = log.pageSize
        usableSize = log.pageSize - (n == 100 ? Int(header[20]) : 0)
        let mainBytes = Int64(lseek(main, 0, SEEK_END))
        pageLimit = UInt32(
            clamping: max(mainBytes / Int64(log.pageSize), Int64(log.commits.map(\.databaseSize).max() ?? 0)))
        fileBytes = Int(clamping: mainBytes + log.size)
    }

    deinit {
        close(mainFD)
        close(walFD)
    }

    /// Page `n` at this state; nil when neither file holds it (past the main file's end).
    func page(_ n: UInt32) -> [UInt8]? { page(n, frame: latest[n]) }

    /// Page `n` from frame `frame`, or from the main file when `frame` is nil.
    func page(_ n: UInt32, frame: Int?) -> [UInt8]? {
        guard n > 0, n <= pageLimit || frame != nil else { return nil }
        var bytes = [UInt8](repeating: 0, count: pageSize)
        let offset = frame.map { log.pageOffset(ofFrame: $0) } ?? Int64(n - 1) * Int64(pageSize)
        let got = bytes.withUnsafeMutableBytes {
            pread(frame == nil ? mainFD : walFD, $0.baseAddress, pageSize, off_t(offset))
        }
        return got == pageSize ? bytes : nil
    }

    /// Moves to the state after `commit`, the next one.
    func apply(_ commit: WALLog.Commit) {
        for frame in commit.firstFrame...commit.lastFrame { latest[log.frames[frame - 1].page] = frame }
    }
}
