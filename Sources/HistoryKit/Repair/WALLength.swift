import Foundation
import GRDB

/// A `-wal` file's length and header, read before a write, so that a write that failed can
/// leave the file as it found it.
///
/// A transaction that fails part way (disk full, a file-size limit) has already appended
/// frames to the `-wal`. SQLite rolls it back by ignoring them (the next writer overwrites
/// them), so the content is unchanged, but the file is longer and its bytes differ.
/// ``restore(_:)`` cuts those frames off, under the write lock and only while the header
/// (page size, checkpoint sequence, salts) is the one read before: a checkpoint or another
/// writer's restart in between means the frames past the old length may be real.
struct WALLength {
    let path: String
    let length: Int64
    let header: Data

    /// SQLite's WAL header: magic, version, page size, checkpoint sequence, salts, checksums.
    static let headerSize = 32

    init?(_ path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: Self.headerSize), header.count == Self.headerSize,
              let end = try? handle.seekToEnd() else { return nil }
        self.path = path
        self.header = header
        length = Int64(end)
    }

    /// Truncates the file back to ``length`` if it grew and its header did not change. `db` must
    /// not be in a transaction; the write lock is taken for the truncation and released.
    func restore(_ db: Database) {
        guard (try? db.execute(sql: "BEGIN IMMEDIATE")) != nil else { return }
        defer { try? db.execute(sql: "ROLLBACK") }
        guard let now = WALLength(path), now.header == header, now.length > length else { return }
        _ = truncate(path, off_t(length))
    }
}
