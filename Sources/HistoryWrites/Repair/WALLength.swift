import Foundation
import GRDB

/// A `-wal` file's length and header, read before a write, so that a write that failed can
/// leave the file as it found it.
///
/// A transaction that fails part way (disk full, a file-size limit) has already appended
/// frames to the `-wal`. SQLite rolls it back by ignoring them (the next writer overwrites
/// them), so the content is unchanged, but the file is longer and its bytes differ.
/// ``restore(_:)`` cuts those frames off, under the write lock, and only when no other
/// connection committed since the length was read (`PRAGMA data_version` is the same: its
/// frames would lie past the old length too) and the header (page size, checkpoint sequence,
/// salts) is the one read before (a checkpoint restarts the file).
struct WALLength {
    let path: String
    let length: Int64
    let header: Data
    let dataVersion: Int64

    /// SQLite's WAL header: magic, version, page size, checkpoint sequence, salts, checksums.
    static let headerSize = 32

    /// The `-wal` beside the store `db` is connected to, outside a transaction. The data
    /// version is read first: a commit between the two reads changes it, so ``restore(_:)``
    /// leaves the file alone.
    init?(_ path: String, _ db: Database) {
        guard let version = try? Int64.fetchOne(db, sql: "PRAGMA data_version"),
            let file = Self.read(path)
        else { return nil }
        self.path = path
        dataVersion = version
        (length, header) = file
    }

    private static func read(_ path: String) -> (length: Int64, header: Data)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: headerSize), header.count == headerSize,
            let end = try? handle.seekToEnd()
        else { return nil }
        return (Int64(end), header)
    }

    /// Truncates the file back to ``length`` if it grew while nothing else changed. `db` must
    /// not be in a transaction; the write lock is taken for the truncation and released.
    func restore(_ db: Database) {
        guard (try? db.execute(sql: "BEGIN IMMEDIATE")) != nil else { return }
        defer { try? db.execute(sql: "ROLLBACK") }
        guard (try? Int64.fetchOne(db, sql: "PRAGMA data_version")) == dataVersion,
            let now = Self.read(path), now.header == header, now.length > length
        else { return }
        _ = truncate(path, off_t(length))
    }
}
