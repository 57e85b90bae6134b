import Foundation

/// What a `-shm` says of its `-wal`: the salts and the frame count of the log it indexes, and
/// how many frames a checkpoint has copied into the main file (`nBackfill`). It is trusted only
/// when it agrees with the log (``agrees(with:)``): a `-shm` left on disk is often stale.
public struct WALIndexHeader: Equatable, Sendable {
    /// The salts as the `-wal`'s header holds them (SQLite copies those bytes).
    public var saltBytes: [UInt8]
    /// The last committed frame it indexes (`mxFrame`: SQLite updates it at each commit).
    public var frames: Int
    /// Frames a checkpoint has copied into the main file (`nBackfill`).
    public var backfilled: Int
    /// Frames a checkpoint has attempted to copy (`nBackfillAttempted`): some of those after
    /// ``backfilled`` may be in the main file too. SQLite sets it to every frame when it rebuilds
    /// the index, as copies made before may be there.
    public var attempted: Int

    /// Reads the header of the `-shm` at `path` (the writer's byte order: little-endian on every
    /// device Core Data runs on); nil when there is none, it is too short, or it is not initialised.
    public static func read(_ path: String) -> WALIndexHeader? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 136), data.count == 136 else { return nil }
        let b = [UInt8](data)
        func word(_ at: Int) -> Int { Int(WALLog.word(b, at, bigEndian: false)) }
        // Two copies of the header, then the checkpoint information; `isInit` is byte 12.
        guard b[12] == 1, b[0..<48] == b[48..<96] else { return nil }
        return WALIndexHeader(
            saltBytes: Array(b[32..<40]), frames: word(16), backfilled: word(96), attempted: word(128))
    }

    /// Whether it indexes exactly `log`: the same salts, and its last commit.
    public func agrees(with log: WALLog) -> Bool {
        saltBytes == log.header.saltBytes && frames == (log.commits.last?.lastFrame ?? 0)
    }
}
