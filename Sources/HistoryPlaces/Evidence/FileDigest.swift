import Crypto
import Foundation
import HistoryReading

/// A file as an examiner records it: its path, size, modification time and SHA-256.
public struct FileDigest: Equatable, Sendable {
    public var path: String
    public var size: Int64
    /// Seconds since 1970 (with the file system's fraction).
    public var modified: Double
    /// Lowercase hex, as `sha256sum` prints it.
    public var sha256: String

    /// Reads `path` whole, in pieces, to hash it; nil when nothing is there.
    public static func take(_ path: String) throws -> FileDigest? {
        guard let status = FileStatus(path) else { return nil }
        guard status.kind == .regular else {
            throw EvidenceError.unreadable(path: path, reason: "not a regular file but \(status.kind.description)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw EvidenceError.unreadable(path: path, reason: FileAccess.whyUnreadable(path) ?? "it cannot be opened")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                hasher.update(data: piece)
                size += Int64(piece.count)
            }
        } catch {
            throw EvidenceError.unreadable(path: path, reason: error.localizedDescription)
        }
        return FileDigest(
            path: path, size: size, modified: Double(status.modifiedNanoseconds) / 1e9,
            sha256: Array(hasher.finalize()).hexString)
    }
}
