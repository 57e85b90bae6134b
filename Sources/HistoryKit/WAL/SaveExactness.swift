import Foundation

/// Which commits of a log can be rebuilt exactly: the main file plus the log's frames through a
/// commit is the store as it was after it, unless a checkpoint has already copied later frames
/// into the main file. Then a page first written after that commit is read from the main file as
/// a later save left it, and the commit is partial.
///
/// How far a checkpoint got comes from the `-shm` when its header agrees with the log (its
/// `nBackfill`); otherwise from the main file itself: a page of the main file that equals its copy
/// in a frame, where an earlier copy differs, was most likely copied there by a checkpoint.
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
        return backfilled > 0 ? "a checkpoint copied frames 1–\(backfilled) into the main file, which no longer holds the store as it was before the first save" : nil
    }

    /// Works out which commits of `log` are exact, from the `-shm` at `shmPath` when it agrees, else
    /// by comparing the main file `mainPath`'s pages with the frames.
    public static func of(_ log: WALLog, mainPath: String, shmPath: String) -> SaveExactness {
        var firstFrame: [UInt32: Int] = [:]
        for (i, frame) in log.frames.enumerated() where firstFrame[frame.page] == nil { firstFrame[frame.page] = i + 1 }
        let backfilled: Int
        let source: String
        var evidence: (page: UInt32, frame: Int)?
        // The -shm when it indexes this log; the main file's own pages in any case (recovering a log
        // resets the -shm's count to 0 while the pages copied stay in the main file).
        evidence = copiedPage(log, mainPath: mainPath)
        let shm = WALIndexHeader.read(shmPath).flatMap { $0.agrees(with: log) ? $0 : nil }
        let fromSHM = min(shm?.backfilled ?? 0, log.frames.count)
        if let shm, fromSHM >= (evidence?.frame ?? 0) {
            backfilled = fromSHM
            evidence = nil
            source = "as its -shm says, which indexes this -wal (the same salts, \(shm.frames) frames committed)"
        } else {
            backfilled = evidence?.frame ?? 0
            source = evidence.map { "as the main file shows: its page \($0.page) is the copy of it in frame \($0.frame), an earlier copy differing" }
                ?? "as the main file shows: none of its pages is a later copy from the -wal (\(FileStatus(shmPath) == nil ? "there is no -shm" : "its -shm does not index this -wal"))"
        }
        guard backfilled > 0 else { return SaveExactness(backfilled: 0, source: source, partial: [:]) }
        // Commit k is partial when a page first written after its last frame, through the backfill, exists.
        let firsts = firstFrame.map { (frame: $0.value, page: $0.key) }.sorted { $0.frame < $1.frame }
        var partial: [Int: String] = [:]
        for commit in log.commits where commit.lastFrame < backfilled {
            var low = 0, high = firsts.count
            while low < high {
                let mid = (low + high) / 2
                if firsts[mid].frame <= commit.lastFrame { low = mid + 1 } else { high = mid }
            }
            guard low < firsts.count, firsts[low].frame <= backfilled else { continue }
            let later = log.commit(holdingFrame: firsts[low].frame)?.number
            partial[commit.number] = "a checkpoint copied frames 1–\(backfilled) into the main file (as \(evidence == nil ? "the -shm says" : "its pages show")): "
                + "page \(firsts[low].page), first written by save \(later.map(String.init) ?? "?"), is read from the main file as a later save left it"
        }
        return SaveExactness(backfilled: backfilled, source: source, partial: partial)
    }

    /// The latest frame whose copy of its page the main file holds while an earlier copy of that
    /// page differs (nil when there is none, or the main file cannot be read).
    private static func copiedPage(_ log: WALLog, mainPath: String) -> (page: UInt32, frame: Int)? {
        guard let handle = FileHandle(forReadingAtPath: mainPath) else { return nil }
        defer { try? handle.close() }
        // In two passes over the frames, with memory for each page rather than each frame (a log
        // may hold millions): the pages written more than once, and their hashes in the main file.
        var writes: [UInt32: Int] = [:]
        for frame in log.frames { writes[frame.page, default: 0] += 1 }
        var mainHash: [UInt32: UInt64] = [:]
        for (page, count) in writes where count > 1 {
            guard (try? handle.seek(toOffset: UInt64(page - 1) * UInt64(log.pageSize))) != nil,
                  let data = try? handle.read(upToCount: log.pageSize), data.count == log.pageSize else { continue }
            mainHash[page] = data.withUnsafeBytes { PageHash.of($0) }
        }
        // The latest copy equal to the main file's page, after a copy that differs from it.
        var differed = Set<UInt32>()
        var found: (page: UInt32, frame: Int)?
        for (i, frame) in log.frames.enumerated() {
            guard let main = mainHash[frame.page] else { continue }
            if frame.pageHash != main {
                differed.insert(frame.page)
            } else if differed.contains(frame.page) {
                found = (frame.page, i + 1)
            }
        }
        return found
    }
}
