import Foundation
import ZIPFoundation

/// A zip archive of a file system (a device's extraction, a zipped container), read in place
/// with ZIPFoundation: entries are listed from the central directory, and the few files
/// cdhist needs are inflated into a private folder.
package struct ZipStoreArchive {
    package let path: String
    private let archive: Archive
    /// Every regular file by its path (without a leading `/` or `./`), read once from the
    /// central directory: ZIPFoundation's lookup by path reads the directory again each time.
    private let entries: [String: Entry]
    /// The paths in the archive's order.
    package let paths: [String]

    /// Whether `path` starts as a zip archive does (a local file header or an empty archive's end record).
    package static func isArchive(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 4)) ?? Data())
        return head == [0x50, 0x4B, 0x03, 0x04] || head == [0x50, 0x4B, 0x05, 0x06]
    }

    package init(path: String) throws {
        self.path = path
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw PlaceError.unreadableArchive(path: path, reason: Self.reason(error))
        }
        var entries: [String: Entry] = [:]
        var paths: [String] = []
        for entry in archive where entry.type == .file {
            let inner = Self.normalized(entry.path)
            guard !inner.isEmpty, entries[inner] == nil else { continue }
            entries[inner] = entry
            paths.append(inner)
        }
        self.entries = entries
        self.paths = paths
    }

    /// The uncompressed size the archive declares for `inner` (at most `Int64.max`).
    package func size(_ inner: String) -> Int64? {
        entries[inner].map { Int64(clamping: $0.uncompressedSize) }
    }

    /// The first `count` bytes of the file `inner` (fewer when it is shorter).
    package func prefix(_ inner: String, count: Int) throws -> [UInt8] {
        guard let entry = entries[inner] else { throw PlaceError.notInPlace(name: inner, place: path) }
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

    /// Inflates the file `inner` to `target`, which must not exist. A damaged entry is the
    /// archive's fault; a failed write (a full disk) is thrown as it came.
    func extract(_ inner: String, to target: String) throws {
        guard let entry = entries[inner] else { throw PlaceError.notInPlace(name: inner, place: path) }
        guard FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: target)
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target])
        }
        defer { try? handle.close() }
        var writeError: Error?
        do {
            _ = try archive.extract(entry) { chunk in
                do { try handle.write(contentsOf: chunk) } catch {
                    writeError = error
                    throw error
                }
            }
        } catch {
            if let writeError { throw writeError }
            throw PlaceError.unreadableArchive(path: path, reason: "\(inner): \(Self.reason(error))")
        }
    }

    /// Hands `body` the bytes of the file `inner`, inflated, piece by piece.
    package func read(_ inner: String, _ body: (Data) throws -> Void) throws {
        guard let entry = entries[inner] else { throw PlaceError.notInPlace(name: inner, place: path) }
        do {
            _ = try archive.extract(entry, consumer: body)
        } catch {
            throw PlaceError.unreadableArchive(path: path, reason: "\(inner): \(Self.reason(error))")
        }
    }

    /// Whether the archive holds the regular file `inner`.
    package func contains(_ inner: String) -> Bool { entries[inner] != nil }

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
        case .missingEndOfCentralDirectoryRecord?:
            return "no end-of-central-directory record (a damaged or incomplete zip)"
        case .unreadableArchive?: return "it cannot be opened for reading"
        case .invalidCRC32?: return "a checksum does not match (damaged data)"
        case .invalidCompressionMethod?: return "an entry is compressed with a method other than deflate"
        case .invalidEntrySize?, .invalidLocalHeaderSize?, .invalidLocalHeaderDataOffset?:
            return "an entry's header is damaged"
        case .invalidCentralDirectoryOffset?, .invalidCentralDirectorySize?, .invalidCentralDirectoryEntryCount?:
            return "its central directory is damaged"
        default: return "\(error)"
        }
    }
}

extension PackedReference {
    /// Whether `path` is a regular file that starts as a zip archive does.
    public static func isZipArchive(_ path: String) -> Bool {
        FileStatus(path)?.kind == .regular && ZipStoreArchive.isArchive(path)
    }
}
