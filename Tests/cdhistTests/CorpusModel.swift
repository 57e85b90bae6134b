import Foundation

/// A store's `-wal` and main file read apart from cdhist's own readers, to check what cdhist says
/// of them: SQLite's log format from its documentation (a 32-byte header; frames of a 24-byte
/// header and a page, valid while their salts are the header's and their checksum chains from
/// the one before; a commit frame gives the database's size), and the checkpoint rule: a
/// checkpoint through frame K leaves every page written in frames 1…K, within the database's
/// size after K, in the main file as its last copy through K. Pages are compared byte for byte.
struct CorpusModel {
    struct Frame {
        var page: Int
        var databaseSize: Int
        /// Where its page's bytes start in the log.
        var offset: Int
    }

    let pageSize: Int
    /// The valid frames up to the last commit.
    let frames: [Frame]
    /// Each commit's last frame, from 1.
    let commitEnds: [Int]
    /// The frames a checkpoint copied, as the files show (within what the `-shm` records when it
    /// indexes this log).
    let backfilled: Int
    /// Whether the store as it was after each commit (index 0: before the first) is exact: it reads
    /// no page of its database (within its size) that a later commit first wrote and the checkpoint copied.
    let stateExact: [Bool]

    private let log: [UInt8]

    var frameSize: Int { 24 + pageSize }

    /// Whether save `n` (from 1) is exact: the states before and after it are.
    func saveExact(_ n: Int) -> Bool { stateExact[n] && stateExact[n - 1] }

    /// The bytes of the log through commit `n` (0: none).
    func length(throughCommit n: Int) -> Int { n == 0 ? 0 : 32 + commitEnds[n - 1] * frameSize }

    init(store: String) throws {
        let main = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store)))
        // An empty or absent log is read as none (Foundation's Data(contentsOf:) leaks its buffer on an empty file).
        let walSize = (try? FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? Int) ?? 0
        let log = walSize > 0 ? [UInt8](try Data(contentsOf: URL(fileURLWithPath: store + "-wal"))) : []
        self.log = log
        func be(_ b: [UInt8], _ at: Int) -> Int {
            Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
        }
        let rawSize = Int(main[16]) << 8 | Int(main[17])
        let pageSize = rawSize == 1 ? 65536 : rawSize
        self.pageSize = pageSize
        var frames: [Frame] = []
        var ends: [Int] = []
        if log.count >= 32, be(log, 0) & ~1 == 0x377F_0682 {
            let bigEndian = be(log, 0) & 1 == 1
            func sum(_ range: Range<Int>, _ s: (UInt32, UInt32)) -> (UInt32, UInt32) {
                var (s0, s1) = s
                var i = range.lowerBound
                while i < range.upperBound {
                    let w0 = UInt32(bigEndian ? be(log, i) : be(Array(log[i..<(i + 4)].reversed()), 0))
                    let w1 = UInt32(bigEndian ? be(log, i + 4) : be(Array(log[(i + 4)..<(i + 8)].reversed()), 0))
                    s0 = s0 &+ w0 &+ s1
                    s1 = s1 &+ w1 &+ s0
                    i += 8
                }
                return (s0, s1)
            }
            var chain = sum(0..<24, (0, 0))
            var at = 32
            while at + 24 + pageSize <= log.count {
                guard log[(at + 8)..<(at + 16)] == log[16..<24] else { break }
                chain = sum(at + 24..<(at + 24 + pageSize), sum(at..<(at + 8), chain))
                guard chain == (UInt32(be(log, at + 16)), UInt32(be(log, at + 20))), be(log, at) != 0 else { break }
                frames.append(Frame(page: be(log, at), databaseSize: be(log, at + 4), offset: at + 24))
                if be(log, at + 4) != 0 { ends.append(frames.count) }
                at += 24 + pageSize
            }
        }
        frames = Array(frames.prefix(ends.last ?? 0))
        self.frames = frames
        commitEnds = ends
        // The commits a checkpoint could have copied the log through: every page fits.
        var fitting = [0]
        for end in ends {
            var last: [Int: Int] = [:]
            for n in 0..<end { last[frames[n].page] = n }
            let size = frames[end - 1].databaseSize
            let fits = last.allSatisfy { page, n in
                guard page <= size else { return true }
                let start = (page - 1) * pageSize
                guard start + pageSize <= main.count else { return false }
                return main[start..<(start + pageSize)] == log[frames[n].offset..<(frames[n].offset + pageSize)]
            }
            if fits { fitting.append(end) }
        }
        // The -shm, when it indexes this log (initialised, its two header copies equal, this log's
        // salts and last commit), records frames copied (nBackfill) and attempted (nBackfillAttempted).
        var range = 0...Int.max
        if let shm = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: store + "-shm"))), shm.count >= 136,
            shm[12] == 1,
            shm[0..<48] == shm[48..<96], log.count >= 32, shm[32..<40] == log[16..<24]
        {
            func le(_ at: Int) -> Int { be(Array(shm[at..<(at + 4)].reversed()), 0) }
            if le(16) == (ends.last ?? 0) {
                let low = min(le(96), frames.count)
                range = low...max(low, min(le(128), frames.count))
            }
        }
        let backfilled = fitting.last { range.contains($0) } ?? fitting.last ?? 0
        self.backfilled = backfilled
        // The state after commit k reads a page first written after it, up to the backfill, from the main file.
        var first: [Int: Int] = [:]
        for (n, frame) in frames.enumerated() where first[frame.page] == nil { first[frame.page] = n + 1 }
        stateExact =
            [backfilled == 0]
            + ends.map { end in
                let size = frames[end - 1].databaseSize
                return end >= backfilled || !first.contains { page, n in n > end && n <= backfilled && page <= size }
            }
    }
}
