import Foundation
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// A `-wal` is read as SQLite reads it: up to its last valid commit, whatever follows named.
@Suite struct WALLogTests {
    let fixture = Repository.fixtures + "/WALPending/Tasks.sqlite"

    private func log(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> WALLog {
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("t.sqlite-wal")))
        return try WALLog.read(dir.file("t.sqlite-wal"), pageSize: 4096)
    }

    private var wal: [UInt8] { [UInt8](FileContents.read(fixture + "-wal") ?? Data()) }
    private let frameSize = 24 + 4096

    @Test func theFixturesLogHasEightCommitsOfTenFrames() throws {
        let log = try WALLog.read(fixture + "-wal", pageSize: 4096)
        #expect(log.frames.count == 80 && log.commits.count == 8)
        #expect(log.commits.map(\.firstFrame) == Array(stride(from: 1, through: 71, by: 10)))
        #expect(log.commits.allSatisfy { $0.frames == 10 })
        #expect(log.unfinished == nil && log.olderGenerations.isEmpty && log.damage == nil)
        #expect(log.length(throughCommit: 3) == Int64(32 + 30 * frameSize))
    }

    @Test func aLogCutShortEndsAtItsLastWholeCommit() throws {
        let dir = try TemporaryDirectory()
        let log = try log(Array(wal.prefix(32 + 15 * frameSize + 100)), in: dir)
        #expect(log.commits.count == 1 && log.frames.count == 15)
        #expect(log.unfinished == 11...15)
        #expect(log.damage == "100 bytes after the last whole frame (a write cut short)")
    }

    @Test func aFrameWhoseChecksumDoesNotChainEndsTheLog() throws {
        let dir = try TemporaryDirectory()
        var bytes = wal
        bytes[32 + 14 * frameSize + 24 + 2000] ^= 0xFF
        let log = try log(bytes, in: dir)
        #expect(log.frames.count == 14 && log.commits.count == 1 && log.unfinished == 11...14)
        #expect(
            log.damage
                == """
                frame 15's checksum does not match: SQLite reads only through frame 10, its last commit before \
                it, so frames 11–80 (7 commits) are not part of the store
                """
        )
        #expect(
            log.hidden
                == WALLog.HiddenFrames(
                    damagedFrame: 15, firstFrame: 11, lastFrame: 80, commits: 7,
                    why: "frame 15's checksum does not match"))
        #expect(log.inProgress == nil)
    }

    /// Frames of this generation that do not chain and that no commit follows are the rest of a
    /// save in progress: SQLite zeroes the salts and checksums of a frame it rewrites and fixes
    /// them only when the transaction commits.
    @Test func framesThatNoCommitFollowsAreASaveInProgress() throws {
        let dir = try TemporaryDirectory()
        var bytes = Array(wal.prefix(32 + 18 * frameSize))
        for at in (32 + 15 * frameSize + 8)..<(32 + 15 * frameSize + 24) { bytes[at] = 0 }
        let log = try log(bytes, in: dir)
        #expect(log.frames.count == 15 && log.commits.count == 1 && log.unfinished == 11...15)
        // The save's pages: those of its valid frames (11–15) and of the rest (16–18), each once.
        let pages = Set(
            (10..<18).map { frame in
                bytes[(32 + frame * frameSize)..<(32 + frame * frameSize + 4)].reduce(UInt32(0)) {
                    $0 << 8 | UInt32($1)
                }
            })
        #expect(pages.count > 1)
        #expect(log.inProgress == WALLog.LooseRun(firstFrame: 16, lastFrame: 18, pages: pages.count))
        #expect(log.damage == nil)
    }

    /// Frames after the valid ones with other salts: an earlier generation, left behind by a reset.
    @Test func framesWithOtherSaltsAreAnEarlierGeneration() throws {
        let dir = try TemporaryDirectory()
        var bytes = wal
        for frame in 40..<80 {
            let at = 32 + frame * frameSize + 8
            bytes[at + 3] &+= 1
        }
        let log = try log(bytes, in: dir)
        #expect(log.commits.count == 4 && log.frames.count == 40 && log.damage == nil)
        #expect(log.olderGenerations.count == 1)
        let old = try #require(log.olderGenerations.first)
        #expect(old.firstFrame == 41 && old.lastFrame == 80 && old.commits == 4)
        // Each checksum chains from the frame before it; the first one's predecessor is not of its generation.
        #expect(old.checkedFrames == 39)
    }

    @Test func whatIsNoLogOfThisStoreIsNamed() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: WALError.notALog(path: dir.file("t.sqlite-wal"), reason: "20 bytes: shorter than a WAL header"))
        { try log(Array(wal.prefix(20)), in: dir) }
        var random = wal
        random[0] = 0
        #expect(throws: WALError.notALog(path: dir.file("t.sqlite-wal"), reason: "no WAL header (magic 0x7f0682)")) {
            try log(random, in: dir)
        }
        var checksum = wal
        checksum[13] ^= 1
        #expect(
            throws: WALError.notALog(path: dir.file("t.sqlite-wal"), reason: "its header's checksum does not match")
        ) { try log(checksum, in: dir) }
        try Data(wal).write(to: URL(fileURLWithPath: dir.file("t.sqlite-wal")))
        #expect(
            throws: WALError.notALog(
                path: dir.file("t.sqlite-wal"), reason: "its pages are of 4096 bytes, the database's of 8192")
        ) {
            try WALLog.read(dir.file("t.sqlite-wal"), pageSize: 8192)
        }
    }

    /// A checkpoint through frame K leaves every page written in frames 1…K as its last copy there: one page
    /// equal to a later copy proves nothing (a page may return to earlier content), every page does. The -shm
    /// counts only when it indexes this log.
    @Test func aCheckpointIsTheLargestCommitEveryPageFits() throws {
        let dir = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/WALPending", prefix: "Tasks.sqlite")
        let log = try WALLog.read(dir.file("Tasks.sqlite-wal"), pageSize: 4096)
        let shm = try #require(WALIndexHeader.read(dir.file("Tasks.sqlite-shm")))
        #expect(shm.agrees(with: log) && shm.backfilled == 0)
        #expect(
            SaveExactness.of(log, mainPath: dir.file("Tasks.sqlite"), shmPath: dir.file("Tasks.sqlite-shm")).partial
                .isEmpty)
        try FileManager.default.removeItem(atPath: dir.file("Tasks.sqlite-shm"))
        /// Copies frame `n`'s page into the main file, as a checkpoint would.
        func copy(frame n: Int) throws {
            let handle = try #require(FileHandle(forUpdatingAtPath: dir.file("Tasks.sqlite")))
            let walHandle = try #require(FileHandle(forReadingAtPath: dir.file("Tasks.sqlite-wal")))
            defer {
                try? handle.close()
                try? walHandle.close()
            }
            try walHandle.seek(toOffset: UInt64(log.pageOffset(ofFrame: n)))
            let data = try #require(try walHandle.read(upToCount: 4096))
            try handle.seek(toOffset: UInt64(log.frames[n - 1].page - 1) * 4096)
            try handle.write(contentsOf: data)
        }
        func exactness() -> SaveExactness {
            SaveExactness.of(log, mainPath: dir.file("Tasks.sqlite"), shmPath: dir.file("Tasks.sqlite-shm"))
        }
        // Frame 40's page alone (the last copy of a page written again and again): no checkpoint.
        let page = log.frames[39].page
        #expect(log.frames.filter { $0.page == page }.count > 1)
        try copy(frame: 40)
        #expect(exactness().backfilled == 0)
        #expect(exactness().source.contains("no checkpoint fits its pages"))
        // Every page's last copy through commit 4 (frame 40): a checkpoint through frame 40, and no later one.
        let commit = try #require(log.commits.first { $0.lastFrame == 40 })
        var last: [UInt32: Int] = [:]
        for n in 1...commit.lastFrame { last[log.frames[n - 1].page] = n }
        for n in last.values.sorted() { try copy(frame: n) }
        let inferred = exactness()
        #expect(inferred.backfilled == 40)
        #expect(inferred.source.contains("each of the 10 pages written in frames 1–40 is its last copy there"))
        // Every save writes the same ten pages, first written by save 1: each save still finds its own copies in the
        // -wal, so none is partial; the main file no longer holds the store as it was before save 1.
        #expect(Set(log.frames.map(\.page)).count == 10 && inferred.partial.isEmpty)
        #expect(inferred.reason(ofState: 0) != nil)
    }
}

/// What a store's saves say about a checkpoint is the same on every run.
@Suite(.enabled(if: RealStores.available)) struct CheckpointMisfitTests {
    /// The Photos library's `-wal` fits no checkpoint: the first save after which a page differs
    /// names the lowest such page. It once named whichever a dictionary gave first, another on
    /// each run (161, 644, 691 or 717).
    @Test func theMisfitNamesTheLowestPage() throws {
        let log = try WALLog.read(RealStores.photos + "-wal", pageSize: 4096)
        for _ in 1...3 {
            let exactness = SaveExactness.of(
                log, mainPath: RealStores.photos, shmPath: RealStores.photos + "-no-such-shm")
            #expect(
                exactness.source.contains("even after save 1, page 161 differs from its copy"), "\(exactness.source)")
        }
    }
}
