import Foundation
import ZIPFoundation

/// A zip archive of a file system (a device's extraction, a zipped container), read in place
/// with ZIPFoundation: entries are listed from the central directory, and the few files
/// cdhist needs are inflated into a private folder.
public struct ZipStoreArchive {
    let path: String
    private let archive: Archive

    /// Whether `path` starts as a zip archive does (a local file header or an empty archive's end record).
    static func isArchive(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 4)) ?? Data())
        return head == [0x50, 0x4B, 0x03, 0x04] || head == [0x50, 0x4B, 0x05, 0x06]
    }

    init(path: String) throws {
        self.path = path
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw PlaceError.unreadableArchive(path: path, reason: Self.reason(error))
        }
    }

    /// Every regular file's path (without a leading `/` or `./`) and size.
    func files() -> [(path: String, size: UInt64)] {
        archive.compactMap { entry in
            entry.type == .file ? (Self.normalized(entry.path), entry.uncompressedSize) : nil
        }
    }

    /// The first `count` bytes of the file `inner` (fewer when it is shorter).
    func prefix(_ inner: String, count: Int) throws -> [UInt8] {
        guard let entry = self.entry(inner) else { throw PlaceError.notInPlace(name: inner, place: path) }
        var bytes: [UInt8] = []
        do {
            _ = try archive.extract(entry, bufferSize: max(count, 512), skipCRC32: true) { chunk in
                bytes += chunk.prefix(count - bytes.count)
                if bytes.count >= count { throw EnoughRead() }
            }
        } catch is EnoughRead {
        } catch {
            throw PlaceError.unreadableArchive(path: path, reason: "\(inner): \(Self.reason(error))")
        }
        return bytes
    }

    /// Inflates the file `inner` to `target`, which must not exist.
    func extract(_ inner: String, to target: String) throws {
        guard let entry = self.entry(inner) else { throw PlaceError.notInPlace(name: inner, place: path) }
        guard FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: target) else {
            throw PlaceError.unreadableArchive(path: path, reason: "\(target) cannot be written")
        }
        defer { try? handle.close() }
        do {
            _ = try archive.extract(entry) { chunk in try handle.write(contentsOf: chunk) }
        } catch {
            throw PlaceError.unreadableArchive(path: path, reason: "\(inner): \(Self.reason(error))")
        }
    }

    /// Whether the archive holds the regular file `inner`.
    func contains(_ inner: String) -> Bool { entry(inner) != nil }

    private func entry(_ inner: String) -> Entry? {
        if let entry = archive[inner], entry.type == .file { return entry }
        return archive.first { $0.type == .file && Self.normalized($0.path) == inner }
    }

    private static func normalized(_ path: String) -> String {
        var p = Substring(path)
        while p.hasPrefix("./") { p = p.dropFirst(2) }
        while p.hasPrefix("/") { p = p.dropFirst() }
        return String(p)
    }

    private struct EnoughRead: Error {}

    /// ZIPFoundation's errors in words.
    private static func reason(_ error: Error) -> String {
        switch error as? Archive.ArchiveError {
        case .missingEndOfCentralDirectoryRecord?: return "no end-of-central-directory record (a damaged or incomplete zip)"
        case .unreadableArchive?: return "it cannot be opened for reading"
        case .invalidCRC32?: return "a checksum does not match (damaged data)"
        case .invalidCompressionMethod?: return "an entry is compressed with a method other than deflate"
        case .invalidEntrySize?, .invalidLocalHeaderSize?, .invalidLocalHeaderDataOffset?: return "an entry's header is damaged"
        case .invalidCentralDirectoryOffset?, .invalidCentralDirectorySize?, .invalidCentralDirectoryEntryCount?:
            return "its central directory is damaged"
        default: return "\(error)"
        }
    }
}

extension ZipStoreArchive {
    /// Whether `path` is a regular file that starts as a zip archive does.
    public static func isArchiveFile(_ path: String) -> Bool {
        FileStatus(path)?.kind == .regular && isArchive(path)
    }
}
