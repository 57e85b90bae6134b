import Foundation

/// A `-wal` file read frame by frame, as SQLite reads it when it rebuilds its WAL index: the
/// header; the valid frames (their salts are the header's and each checksum chains from the one
/// before); the commits among them, each one save of the app; the valid frames after the last
/// commit (a save that never finished); and what lies beyond: frames of an earlier generation
/// of the log (other salts: left behind when a writer reset the log after a checkpoint), or
/// damage (a checksum that does not chain, a frame cut short).
///
/// Frames are numbered from 1, as SQLite counts them; so are commits.
public struct WALLog: Sendable {
    /// The 32-byte header.
    public struct Header: Equatable, Sendable {
        public var pageSize: Int
        public var checkpointSequence: UInt32
        public var salt1: UInt32
        public var salt2: UInt32
        /// The magic says the checksum reads big-endian words (0x377f0683) or little-endian ones.
        public var bigEndianChecksum: Bool
        var checksum1: UInt32
        var checksum2: UInt32
        /// The salts as the file holds them (the -shm keeps these bytes).
        public var saltBytes: [UInt8]
        /// The 32 bytes as the file holds them.
        public var bytes: [UInt8]

        /// What stands for the header of a log of 0 bytes: no salts, no frames.
        static func empty(pageSize: Int) -> Header {
            Header(
                pageSize: pageSize, checkpointSequence: 0, salt1: 0, salt2: 0, bigEndianChecksum: false, checksum1: 0,
                checksum2: 0,
                saltBytes: [UInt8](repeating: 0, count: 8), bytes: [UInt8](repeating: 0, count: 32))
        }
    }

    /// One frame: the copy of one page a commit wrote.
    public struct Frame: Equatable, Sendable {
        public var page: UInt32
        /// For a commit's last frame, the database's size in pages after it; 0 for the others.
        public var databaseSize: UInt32
        /// A hash of the page it holds (`PageHash`), to compare copies of a page.
        public var pageHash: UInt64
    }

    /// One commit: one save, frames `firstFrame` through `lastFrame`.
    public struct Commit: Equatable, Sendable {
        public var number: Int
        public var firstFrame: Int
        public var lastFrame: Int
        /// The pages it wrote (each once, however many frames hold it).
        public var pages: Int
        /// The database's size in pages after it.
        public var databaseSize: UInt32
        public var frames: Int { lastFrame - firstFrame + 1 }
    }

    /// A run of frames: their places in the file, as frame numbers, and the pages they hold.
    public struct LooseRun: Equatable, Sendable {
        public var firstFrame: Int
        public var lastFrame: Int
        public var pages: Int
    }

    /// Frames beyond the valid ones that carry other salts: an earlier generation of the log.
    public struct Generation: Equatable, Sendable {
        public var salt1: UInt32
        public var salt2: UInt32
        /// Their places in the file, as frame numbers.
        public var firstFrame: Int
        public var lastFrame: Int
        /// Commit frames among them.
        public var commits: Int
        /// The pages they hold (each once).
        public var pages: Int
        /// Frames whose checksum chains from the frame before them (the first of a run cannot be
        /// checked: the frame before it was overwritten).
        public var checkedFrames: Int
        public var frames: Int { lastFrame - firstFrame + 1 }
    }

    public let path: String
    public let header: Header
    /// The file's size in bytes (-1: there is no file, ``isMissing``).
    public let size: Int64
    /// The valid frames, in order.
    public let frames: [Frame]
    public let commits: [Commit]
    /// Valid frames after the last commit: a save that had not finished (SQLite ignores them).
    public let unfinished: ClosedRange<Int>?
    /// Frames of this generation after the valid ones that no commit follows: the rest of a save
    /// in progress (SQLite checksums a transaction's frames only when it commits). Its pages count
    /// those of the valid frames after the last commit too: the same save's.
    public let inProgress: LooseRun?
    /// Frames of earlier generations, in file order.
    public let olderGenerations: [Generation]
    /// What stopped the valid frames before the end of the file, other than an earlier generation.
    public let damage: String?
    /// Frames of this log that a damaged frame hides from SQLite (and so from the store): nil
    /// when no commit of this generation follows a frame that breaks the checksum chain.
    public let hidden: HiddenFrames?

    /// The frames a damaged frame hides: SQLite reads a log only through its last commit before it.
    public struct HiddenFrames: Equatable, Sendable {
        /// The damaged frame: the first whose checksum does not chain (or that names no page).
        public var damagedFrame: Int
        /// The first frame hidden: the one after the last commit before the damage.
        public var firstFrame: Int
        /// The last commit frame of this log after it.
        public var lastFrame: Int
        /// Commit frames of this log from it on.
        public var commits: Int
        /// What is wrong with the damaged frame (`frame 15's checksum does not match`).
        public var why: String
        /// The frames hidden, through the last commit after the damage.
        public var frames: Int { lastFrame - firstFrame + 1 }

        /// What it means, for people: where SQLite stops reading, and what it does not see.
        public var sentence: String {
            let through =
                firstFrame > 1 ? "only through frame \(firstFrame - 1), its last commit before it" : "no commit of it"
            return
                """
                \(why): SQLite reads \(through), so frames \(firstFrame)–\(lastFrame) \
                (\(plural(commits, "commit"))) are not part of the store
                """
        }
    }

    public var pageSize: Int { header.pageSize }
    /// Whether the file has 0 bytes (the log was reset and nothing written since), or is not
    /// there (``isMissing``).
    public var isEmpty: Bool { size == 0 }
    /// Whether there is no file: SQLite removes the log when the last connection closes.
    public var isMissing: Bool { size < 0 }

    /// The log of a store in WAL mode that has no `-wal`: no frame, no save.
    public static func missing(_ path: String, pageSize: Int) -> WALLog {
        WALLog(
            path: path, header: .empty(pageSize: pageSize), size: -1, frames: [], commits: [], unfinished: nil,
            inProgress: nil, olderGenerations: [], damage: nil, hidden: nil)
    }
    /// Bytes of one frame: its 24-byte header and a page.
    public var frameSize: Int64 { 24 + Int64(header.pageSize) }

    /// Where frame `n`'s page data starts in the file.
    public func pageOffset(ofFrame n: Int) -> Int64 { 32 + Int64(n - 1) * frameSize + 24 }

    /// The bytes of the log through commit `number`: what SQLite reads to see the store as it
    /// was after that commit (0: the header alone, the main file as it was before the first).
    public func length(throughCommit number: Int) -> Int64 {
        32 + (number > 0 && number <= commits.count ? Int64(commits[number - 1].lastFrame) * frameSize : 0)
    }

    /// The commit a frame belongs to (nil for an unfinished one).
    public func commit(holdingFrame frame: Int) -> Commit? {
        var low = 0
        var high = commits.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if commits[mid].lastFrame < frame {
                low = mid + 1
            } else if commits[mid].firstFrame > frame {
                high = mid - 1
            } else {
                return commits[mid]
            }
        }
        return nil
    }

    /// Reads the log at `path`; `pageSize`, the main file's, must be the log's.
    /// `hashingPages`: whether each frame's ``Frame/pageHash`` is taken (0 when not: enough to
    /// find the commits and the damage, as opening a store does).
    public static func read(_ path: String, pageSize expected: Int, hashingPages: Bool = true) throws -> WALLog {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw WALError.unreadable(path: path, reason: FileAccess.whyUnreadable(path) ?? "cannot be read")
        }
        defer { try? handle.close() }
        let size = Int64((try? handle.seekToEnd()) ?? 0)
        try? handle.seek(toOffset: 0)
        // A log of 0 bytes was reset (truncated after a checkpoint) and nothing written since.
        if size == 0 {
            return WALLog(
                path: path, header: .empty(pageSize: expected), size: 0, frames: [], commits: [], unfinished: nil,
                inProgress: nil, olderGenerations: [], damage: nil, hidden: nil)
        }
        guard size >= 32, let head = try? handle.read(upToCount: 32), head.count == 32 else {
            throw WALError.notALog(path: path, reason: "\(size) bytes: shorter than a WAL header")
        }
        let header = try Self.header([UInt8](head), path: path)
        guard header.pageSize == expected else {
            throw WALError.notALog(
                path: path, reason: "its pages are of \(header.pageSize) bytes, the database's of \(expected)")
        }
        var scan = Scan(header: header, size: size, hashingPages: hashingPages)
        let frameSize = 24 + header.pageSize
        let batch = max(1, (1 << 20) / frameSize)
        while let chunk = try? handle.read(upToCount: batch * frameSize), !chunk.isEmpty {
            chunk.withUnsafeBytes { raw in
                var at = 0
                while at + frameSize <= raw.count {
                    scan.add(UnsafeRawBufferPointer(rebasing: raw[at..<(at + frameSize)]))
                    at += frameSize
                }
            }
            if chunk.count < batch * frameSize { break }
        }
        return scan.log(path: path)
    }

    /// The header of a log, checked: magic, version, a page size SQLite can have, its checksum.
    static func header(_ b: [UInt8], path: String) throws -> Header {
        let magic = word(b, 0, bigEndian: true)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else {
            throw WALError.notALog(path: path, reason: "no WAL header (magic \(hex(magic)))")
        }
        guard word(b, 4, bigEndian: true) == 3_007_000 else {
            throw WALError.notALog(path: path, reason: "an unknown format version (\(word(b, 4, bigEndian: true)))")
        }
        let pageSize = Int(word(b, 8, bigEndian: true))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw WALError.notALog(path: path, reason: "a page size SQLite cannot have (\(pageSize))")
        }
        let bigEndian = magic & 1 == 1
        let (c1, c2) = b.withUnsafeBytes {
            checksum(UnsafeRawBufferPointer(rebasing: $0[0..<24]), bigEndian: bigEndian, 0, 0)
        }
        guard c1 == word(b, 24, bigEndian: true), c2 == word(b, 28, bigEndian: true) else {
            throw WALError.notALog(path: path, reason: "its header's checksum does not match")
        }
        return Header(
            pageSize: pageSize, checkpointSequence: word(b, 12, bigEndian: true), salt1: word(b, 16, bigEndian: true),
            salt2: word(b, 20, bigEndian: true), bigEndianChecksum: bigEndian, checksum1: c1, checksum2: c2,
            saltBytes: Array(b[16..<24]), bytes: Array(b[0..<32]))
    }

    /// SQLite's WAL checksum of `bytes` (a multiple of 8), continuing from `s1`, `s2`.
    static func checksum(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool, _ s1: UInt32, _ s2: UInt32) -> (
        UInt32, UInt32
    ) {
        var s1 = s1
        var s2 = s2
        var i = 0
        let n = bytes.count & ~7
        while i < n {
            var x0 = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)
            var x1 = bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self)
            if bigEndian {
                x0 = UInt32(bigEndian: x0)
                x1 = UInt32(bigEndian: x1)
            } else {
                x0 = UInt32(littleEndian: x0)
                x1 = UInt32(littleEndian: x1)
            }
            s1 = s1 &+ x0 &+ s2
            s2 = s2 &+ x1 &+ s1
            i += 8
        }
        return (s1, s2)
    }

    static func word(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        let bytes = b[at..<(at + 4)]
        return (bigEndian ? Array(bytes) : bytes.reversed()).reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func word(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    static func hex(_ n: UInt32) -> String { "0x" + String(n, radix: 16) }

    /// The frames read so far and what they make.
    private struct Scan {
        let header: Header
        let size: Int64
        var frames: [Frame] = []
        var commits: [Commit] = []
        var checksum: (UInt32, UInt32)
        /// Whether the valid frames have ended (a frame that does not chain, or other salts).
        var ended = false
        var position = 0
        /// The first frame after the valid ones, and what is wrong with it.
        var breakFrame: Int?
        var breakWhy = ""
        /// The last commit of this generation after the break: the break is damage, not a save in
        /// progress, and frames of other salts before it are damaged ones, not an earlier generation.
        var lastCommitAfterBreak: Int?
        var commitsAfterBreak = 0
        var inProgressPages = Set<UInt32>()
        var inProgressLast: Int?
        var generations: [Generation] = []
        var pagesSinceCommit = Set<UInt32>()
        var generationPages = Set<UInt32>()
        var previousChecksum: (UInt32, UInt32)?

        let hashingPages: Bool

        init(header: Header, size: Int64, hashingPages: Bool) {
            self.hashingPages = hashingPages
            self.header = header
            self.size = size
            // As many frames as the file can hold (16 bytes for each 24 + page size): growing the
            // array by doubling would keep up to twice that.
            frames.reserveCapacity(Int(max(0, (size - 32) / (24 + Int64(header.pageSize)))))
            checksum = (header.checksum1, header.checksum2)
        }

        mutating func add(_ frame: UnsafeRawBufferPointer) {
            position += 1
            let page = WALLog.word(frame, 0)
            let databaseSize = WALLog.word(frame, 4)
            let salt1 = WALLog.word(frame, 8)
            let salt2 = WALLog.word(frame, 12)
            let stored = (WALLog.word(frame, 16), WALLog.word(frame, 20))
            let sameSalts = salt1 == header.salt1 && salt2 == header.salt2
            if !ended {
                var sum = WALLog.checksum(
                    UnsafeRawBufferPointer(rebasing: frame[0..<8]), bigEndian: header.bigEndianChecksum, checksum.0,
                    checksum.1)
                sum = WALLog.checksum(
                    UnsafeRawBufferPointer(rebasing: frame[24...]), bigEndian: header.bigEndianChecksum, sum.0, sum.1)
                if sameSalts && page != 0 && sum == stored {
                    checksum = sum
                    frames.append(
                        Frame(
                            page: page, databaseSize: databaseSize,
                            pageHash: hashingPages ? PageHash.of(UnsafeRawBufferPointer(rebasing: frame[24...])) : 0))
                    pagesSinceCommit.insert(page)
                    if databaseSize != 0 {
                        let first = (commits.last?.lastFrame ?? 0) + 1
                        commits.append(
                            Commit(
                                number: commits.count + 1, firstFrame: first, lastFrame: position,
                                pages: pagesSinceCommit.count,
                                databaseSize: databaseSize))
                        pagesSinceCommit = []
                    }
                    return
                }
                ended = true
                breakFrame = position
                breakWhy =
                    page == 0
                    ? "frame \(position) names no page"
                    : sameSalts
                        ? "frame \(position)'s checksum does not match"
                        : "frame \(position) carries other salts than the log's header"
            }
            // Beyond the valid frames, frames of this generation (its salts, or the zero salts SQLite
            // writes before a commit fixes them up) are a save in progress, unless a commit of this
            // generation follows: then the frames that broke the chain are damage.
            let zeroed = salt1 == 0 && salt2 == 0 && stored == (0, 0)
            if sameSalts || zeroed {
                if sameSalts && databaseSize != 0 {
                    lastCommitAfterBreak = position
                    commitsAfterBreak += 1
                }
                inProgressPages.insert(page)
                inProgressLast = position
                previousChecksum = stored
                return
            }
            let checks: Bool
            if var last = generations.last, last.salt1 == salt1, last.salt2 == salt2, last.lastFrame == position - 1 {
                checks =
                    previousChecksum.map { prior in
                        var sum = WALLog.checksum(
                            UnsafeRawBufferPointer(rebasing: frame[0..<8]), bigEndian: header.bigEndianChecksum,
                            prior.0, prior.1)
                        sum = WALLog.checksum(
                            UnsafeRawBufferPointer(rebasing: frame[24...]), bigEndian: header.bigEndianChecksum, sum.0,
                            sum.1)
                        return sum == stored
                    } ?? false
                last.lastFrame = position
                if databaseSize != 0 { last.commits += 1 }
                if checks { last.checkedFrames += 1 }
                generationPages.insert(page)
                last.pages = generationPages.count
                generations[generations.count - 1] = last
            } else {
                generationPages = [page]
                generations.append(
                    Generation(
                        salt1: salt1, salt2: salt2, firstFrame: position, lastFrame: position,
                        commits: databaseSize != 0 ? 1 : 0, pages: 1, checkedFrames: 0))
            }
            previousChecksum = stored
        }

        func log(path: String) -> WALLog {
            let wholeFrames = (size - 32) / (24 + Int64(header.pageSize))
            let leftOver = size - 32 - wholeFrames * (24 + Int64(header.pageSize))
            var damage: String?
            var inProgress: LooseRun?
            var generations = self.generations
            var hidden: HiddenFrames?
            // A commit after the frame that breaks the chain: damage. A broken commit frame with none
            // after it is the last write of a save cut short (a copy taken while it was written).
            if let breakFrame, let lastCommitAfterBreak, lastCommitAfterBreak > breakFrame {
                let hiddenFrames = HiddenFrames(
                    damagedFrame: breakFrame, firstFrame: (commits.last?.lastFrame ?? 0) + 1,
                    lastFrame: lastCommitAfterBreak, commits: commitsAfterBreak, why: breakWhy)
                hidden = hiddenFrames
                damage = hiddenFrames.sentence
                generations.removeAll { $0.firstFrame < lastCommitAfterBreak }
            } else if let last = inProgressLast {
                // Its pages with those of the valid frames before it (the same save's first frames).
                inProgress = LooseRun(
                    firstFrame: breakFrame ?? last, lastFrame: last,
                    pages: inProgressPages.union(pagesSinceCommit).count)
            }
            if damage == nil, leftOver > 0 {
                damage = "\(leftOver) bytes after the last whole frame (a write cut short)"
            }
            let lastCommitted = commits.last?.lastFrame ?? 0
            return WALLog(
                path: path, header: header, size: size, frames: frames, commits: commits,
                unfinished: frames.count > lastCommitted ? (lastCommitted + 1)...frames.count : nil,
                inProgress: inProgress, olderGenerations: generations, damage: damage, hidden: hidden)
        }
    }
}

/// A `-wal` that cannot be read as one.
public enum WALError: MessageError, Equatable, Sendable {
    case unreadable(path: String, reason: String)
    case notALog(path: String, reason: String)
    /// The store has no `-wal`, or one without a commit.
    case noSaves(path: String, reason: String)
    /// A save number outside the log's.
    case noSuchSave(path: String, save: Int, count: Int)

    public var message: Message {
        switch self {
        case .unreadable(let p, let why): return "\(p): cannot be read (\(why))"
        case .notALog(let p, let why): return "\(p): not a WAL file of this store: \(why)"
        case .noSaves(let p, let why): return "\(p): \(why)"
        case .noSuchSave(let p, let n, let count):
            return count == 0
                ? "\(p): its -wal holds no save, so there is no save \(n) (\(Control.listSaves) lists a store's saves)"
                : "\(p): its -wal holds saves 1 to \(count), not \(n)"
        }
    }
}
