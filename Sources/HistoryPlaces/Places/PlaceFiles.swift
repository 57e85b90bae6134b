import Foundation
import HistoryReading

/// The files of a place stores are found in, by path: a folder on disk (absolute paths), a
/// backup (`domain/relativePath`) or a zip archive (entry paths). What a store's surroundings
/// are (its container, its device, its merge state) is looked up through this, once for all three.
protocol PlaceFiles {
    /// The name a command takes for the file at `path`.
    func name(_ path: String) -> String
    /// The file's bytes, when it is no larger than `limit`.
    func read(_ path: String, limit: Int) -> [UInt8]?
    /// The file's first `count` bytes (fewer when it is shorter); nil when it is not a regular file.
    func head(_ path: String, count: Int) -> [UInt8]?
    /// Every regular file below the folder `dir`, with its size.
    func files(under dir: String) -> [(path: String, size: Int64)]
    /// The folders directly inside `dir`.
    func folders(in dir: String) -> [String]
}

extension PlaceFiles {
    /// The property list at `path`, when there is one and it parses.
    func plist(_ path: String) -> PlistValue? {
        read(path, limit: 1 << 20).flatMap { try? PropertyList.decode($0).value }
    }
}

/// A folder on disk.
struct DiskPlace: PlaceFiles {
    func name(_ path: String) -> String { path }

    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let status = FileStatus(path), status.kind == .regular, status.size <= Int64(limit),
            let data = FileContents.read(path)
        else { return nil }
        return [UInt8](data)
    }

    func head(_ path: String, count: Int) -> [UInt8]? {
        guard FileStatus(path)?.kind == .regular, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
    }

    func files(under dir: String) -> [(path: String, size: Int64)] {
        var found: [(String, Int64)] = []
        let enumerator = FileManager.default.enumerator(atPath: dir)
        while let relative = enumerator?.nextObject() as? String {
            let path = PathText.join(dir, relative)
            if let status = FileStatus(path), status.kind == .regular { found.append((path, status.size)) }
        }
        return found
    }

    func folders(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            .map { PathText.join(dir, $0) }
            .filter { FileStatus($0)?.kind == .directory }
    }
}

/// A backup: paths are `domain/relativePath`.
final class BackupPlace: PlaceFiles {
    let backup: DeviceBackup
    private let entries: [String: DeviceBackup.Entry]
    /// Sorted, so that a folder's files are one range.
    let paths: [String]

    init(_ backup: DeviceBackup) throws {
        self.backup = backup
        var entries: [String: DeviceBackup.Entry] = [:]
        // A path listed twice is read as `entry(domain:relativePath:)` reads it: the first row.
        for entry in try backup.files() where entries[entry.domain + "/" + entry.relativePath] == nil {
            entries[entry.domain + "/" + entry.relativePath] = entry
        }
        self.entries = entries
        paths = entries.keys.sorted()
    }

    func entry(_ path: String) -> DeviceBackup.Entry? { entries[path] }

    func name(_ path: String) -> String { backup.root + "/" + path }

    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let entry = entries[path] else { return nil }
        return DiskPlace().read(backup.storedPath(entry), limit: limit)
    }

    func head(_ path: String, count: Int) -> [UInt8]? {
        entries[path].flatMap { DiskPlace().head(backup.storedPath($0), count: count) }
    }

    func size(_ path: String) -> Int64? {
        entries[path].flatMap { FileStatus(backup.storedPath($0))?.size }
    }

    func files(under dir: String) -> [(path: String, size: Int64)] {
        sortedPaths(paths, under: dir).map { ($0, size($0) ?? 0) }
    }

    func folders(in dir: String) -> [String] {
        // Domains are a backup's top folders.
        guard dir.isEmpty else { return [] }
        var domains: [String] = []
        for path in paths {
            let domain = String(path.prefix { $0 != "/" })
            if domains.last != domain { domains.append(domain) }
        }
        return domains
    }
}

/// A zip archive: paths are its entries'.
final class ArchivePlace: PlaceFiles {
    let archive: ZipStoreArchive
    /// Sorted, so that a folder's files are one range.
    let paths: [String]

    init(_ archive: ZipStoreArchive) {
        self.archive = archive
        paths = archive.paths.sorted()
    }

    func size(_ path: String) -> Int64? { archive.size(path) }

    func name(_ path: String) -> String { archive.path + "/" + path }

    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let size = archive.size(path), size <= Int64(limit) else { return nil }
        return try? archive.prefix(path, count: Int(size))
    }

    func head(_ path: String, count: Int) -> [UInt8]? {
        try? archive.prefix(path, count: count)
    }

    func files(under dir: String) -> [(path: String, size: Int64)] {
        sortedPaths(paths, under: dir).map { ($0, archive.size($0) ?? 0) }
    }

    func folders(in dir: String) -> [String] {
        let prefix = dir.isEmpty || dir.hasSuffix("/") ? dir : dir + "/"
        var found: [String] = []
        for path in sortedPaths(paths, under: dir) {
            let rest = path.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/"), found.last != prefix + rest[..<slash] {
                found.append(prefix + rest[..<slash])
            }
        }
        return found
    }
}

/// The paths of the sorted `paths` below the folder `dir` (every path for ""), found by binary search.
private func sortedPaths(_ paths: [String], under dir: String) -> ArraySlice<String> {
    guard !dir.isEmpty else { return paths[...] }
    let prefix = dir.hasSuffix("/") ? dir : dir + "/"
    var low = 0
    var high = paths.count
    while low < high {
        let mid = (low + high) / 2
        if paths[mid] < prefix { low = mid + 1 } else { high = mid }
    }
    var end = low
    while end < paths.count, paths[end].hasPrefix(prefix) { end += 1 }
    return paths[low..<end]
}
