import Foundation

/// Which commits of a log can be rebuilt exactly: the main file plus the log's frames through a
/// commit is the store as it was after it, unless a checkpoint has already copied later frames
/// into the main file. Then a page first written after that commit is read from the main file as
/// a later save left it, and the commit is partial.
///
/// A checkpoint through frame K leaves *every* page written in frames 1…K (within the database's
/// size after frame K) equal, in the main file, to its last copy at or before K. One page equal
/// to a copy proves nothing (a page may return to earlier content); so each commit is tried as a
/// checkpoint against every page, and the largest that fits is the only checkpoint the files
/// support. The `-shm`, when it indexes this log, narrows the candidates to what it records:
/// frames copied (`nBackfill`) up to frames a checkpoint attempted (`nBackfillAttempted`; after
/// SQLite rebuilds its index, every frame, since a copy may have been made before).
public struct SaveExactness: Sendable {
    /// Frames copied into the main file (known or inferred); 0 when none.
    public let backfilled: Int
    /// How ``backfilled`` is known.
    public let source: String
    /// For each partial commit (by number), why: the store as it was after it cannot be rebuilt.
    public let partial: [Int: String]

    /// Why the store as it was after commit `state` (0: before the first, the main file alone)
    /// cannot be rebuilt exactly; nil when it can.
    public func reason(ofState state: Int) -> String? {
        guard state == 0 else { return partial[state] }
        return backfilled > 0 ? Self.beforeFirstSave(backfilled) : nil
    }

    /// Why the main file no longer holds the store as it was before the log's first save.
    static func beforeFirstSave(_ backfilled: Int) -> String {
        "a checkpoint copied frames 1–\(backfilled) into the main file, which no longer holds the store as it was "
            + "before the first save"
    }

    /// Works out which commits of `log` are exact from the main file `mainPath`'s pages, within
    /// what the `-shm` at `shmPath` records when it indexes this log.
    public static func of(_ log: WALLog, mainPath: String, shmPath: String) -> SaveExactness {
        let fits = CheckpointFit.of(log, mainPath: mainPath)
        let shm = WALIndexHeader.read(shmPath).flatMap { $0.agrees(with: log) ? $0 : nil }
        let backfilled: Int
        let source: String
        if let shm {
            let low = min(shm.backfilled, log.frames.count)
            let high = max(low, min(shm.attempted, log.frames.count))
            let indexes = "its -shm, which indexes this -wal (the same salts, \(shm.frames) frames committed)"
            let allows =
                (low == 0
                    ? "says only that a checkpoint may have copied frames up to \(high)"
                    : "says a checkpoint copied frames 1–\(low), and may have copied up to \(high)")
            if let k = fits.largest(in: low...high) {
                backfilled = k
                source =
                    low == high
                    ? "as \(indexes) says" + (k == 0 ? "" : ", which every page written through frame \(k) bears out")
                    : "as the main file shows: \(fits.explanation(k)); \(indexes) \(allows)"
            } else {
                backfilled = fits.largest
                source =
                    "as the main file shows: \(fits.explanation(backfilled)); "
                    + "\(indexes) says frames \(low)–\(high) were copied, which the pages do not bear out"
            }
        } else {
            backfilled = fits.largest
            let why = FileStatus(shmPath) == nil ? "there is no -shm" : "its -shm does not index this -wal"
            source = "as the main file shows: \(fits.explanation(backfilled)) (\(why))"
        }
        guard backfilled > 0 else { return SaveExactness(backfilled: 0, source: source, partial: [:]) }
        return SaveExactness(
            backfilled: backfilled, source: source, partial: partialCommits(log, backfilled: backfilled))
    }

    /// Commit k is partial when a page of its database (within its size) first written after its
    /// last frame, through the backfill, exists: the store after k reads that page from the main
    /// file as a later save left it.
    private static func partialCommits(_ log: WALLog, backfilled: Int) -> [Int: String] {
        var firstFrame: [UInt32: Int] = [:]
        for (i, frame) in log.frames.enumerated() where firstFrame[frame.page] == nil { firstFrame[frame.page] = i + 1 }
        let firsts = firstFrame.map { (frame: $0.value, page: $0.key) }.sorted { $0.frame < $1.frame }
        var partial: [Int: String] = [:]
        for commit in log.commits where commit.lastFrame < backfilled {
            var low = 0
            var high = firsts.count
            while low < high {
                let mid = (low + high) / 2
                if firsts[mid].frame <= commit.lastFrame { low = mid + 1 } else { high = mid }
            }
            // A page beyond the database's size after commit k is not part of the store then.
            while low < firsts.count, firsts[low].frame <= backfilled, firsts[low].page > commit.databaseSize {
                low += 1
            }
            guard low < firsts.count, firsts[low].frame <= backfilled else { continue }
            let later = log.commit(holdingFrame: firsts[low].frame)?.number
            partial[commit.number] =
                "a checkpoint copied frames 1–\(backfilled) into the main file: page \(firsts[low].page), "
                + "which save \(later.map(String.init) ?? "?") writes first, is read from there as a later save left it"
        }
        return partial
    }
}

/// Which ends of commits a checkpoint could have copied the log through, judged by every page:
/// frame K fits when each page written in frames 1…K, within the database's size after K, is in
/// the main file as its last copy at or before K holds it.
struct CheckpointFit {
    /// The last frames of the commits that fit, in order (0, before any frame, always fits).
    let fitting: [Int]
    /// For the first commit that does not fit: a page the main file does not hold as it should.
    let firstMisfit: (commit: Int, page: UInt32, frame: Int)?
    /// The log the fit was judged on.
    let log: WALLog

    var largest: Int { fitting.last ?? 0 }

    /// The largest fitting frame in `range` (nil when none does).
    func largest(in range: ClosedRange<Int>) -> Int? { fitting.last { range.contains($0) } }

    /// Why the main file shows a checkpoint through frame `k` (0: none).
    func explanation(_ k: Int) -> String {
        guard k > 0 else {
            guard let m = firstMisfit else {
                return log.commits.isEmpty ? "the -wal holds no commit" : "no checkpoint its -shm allows fits its pages"
            }
            return
                """
                no checkpoint fits its pages (even after save \(m.commit), page \(m.page) differs from its copy \
                in frame \(m.frame))
                """
        }
        let size = log.commit(holdingFrame: k)?.databaseSize ?? 0
        let pages = Set(log.frames.prefix(k).map(\.page).filter { $0 <= size }).count
        return
            """
            each of the \(pages) pages written in frames 1–\(k) is its last copy there, and no checkpoint through \
            a later save fits
            """
    }

    /// Compares the main file `mainPath` with the frames of `log`, in one pass over the frames,
    /// with memory for each page rather than each frame (a log may hold millions).
    static func of(_ log: WALLog, mainPath: String) -> CheckpointFit {
        let main = mainHashes(log, mainPath: mainPath)
        // Pages whose latest copy so far differs from the main file's, with the frame of that copy.
        var differing: [UInt32: Int] = [:]
        var fitting = [0]
        var misfit: (commit: Int, page: UInt32, frame: Int)?
        var next = 0
        for (i, frame) in log.frames.enumerated() {
            if main[frame.page] == frame.pageHash { differing[frame.page] = nil } else { differing[frame.page] = i + 1 }
            guard next < log.commits.count, log.commits[next].lastFrame == i + 1 else { continue }
            let commit = log.commits[next]
            next += 1
            // A checkpoint copies no page beyond the database's size after the frames it copies.
            if differing.contains(where: { $0.key <= commit.databaseSize }) {
                // The lowest such page names the first misfit: the same on every run (a
                // dictionary's order changes from one process to the next).
                if misfit == nil,
                    let bad = differing.filter({ $0.key <= commit.databaseSize }).min(by: { $0.key < $1.key })
                {
                    misfit = (commit.number, bad.key, bad.value)
                }
            } else {
                fitting.append(i + 1)
            }
        }
        return CheckpointFit(fitting: fitting, firstMisfit: misfit, log: log)
    }

    /// The hash of each page the log writes, as the main file holds it (none for a page beyond
    /// its end or unreadable).
    private static func mainHashes(_ log: WALLog, mainPath: String) -> [UInt32: UInt64] {
        guard let handle = FileHandle(forReadingAtPath: mainPath) else { return [:] }
        defer { try? handle.close() }
        var hashes: [UInt32: UInt64] = [:]
        for page in Set(log.frames.map(\.page)).sorted() {
            guard (try? handle.seek(toOffset: UInt64(page - 1) * UInt64(log.pageSize))) != nil,
                let data = try? handle.read(upToCount: log.pageSize), data.count == log.pageSize
            else { continue }
            hashes[page] = data.withUnsafeBytes { PageHash.of($0) }
        }
        return hashes
    }
}
