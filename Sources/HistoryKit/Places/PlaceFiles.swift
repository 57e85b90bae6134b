import Foundation

/// The files of a place stores are found in, by path: a folder on disk (absolute paths), a
/// backup (`domain/relativePath`) or a zip archive (entry paths). What a store's surroundings
/// are (its container, its device, its merge state) is looked up through this, once for all three.
protocol PlaceFiles {
    /// The name a command takes for the file at `path`.
    func name(_ path: String) -> String
    func isFile(_ path: String) -> Bool
    /// The file's bytes, when it is no larger than `limit`.
    func read(_ path: String, limit: Int) -> [UInt8]?
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

    func isFile(_ path: String) -> Bool { FileStatus(path)?.kind == .regular }

    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let status = FileStatus(path), status.kind == .regular, status.size <= Int64(limit),
              let data = FileContents.read(path) else { return nil }
        return [UInt8](data)
    }

    func files(under dir: String) -> [(path: String, size: Int64)] {
        var found: [(String, Int64)] = []
        let enumerator = FileManager.default.enumerator(atPath: dir)
        while let relative = enumerator?.nextObject() as? String {
            let path = (dir as NSString).appendingPathComponent(relative)
            if let status = FileStatus(path), status.kind == .regular { found.append((path, status.size)) }
        }
        return found
    }

    func folders(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            .map { (dir as NSString).appendingPathComponent($0) }
            .filter { FileStatus($0)?.kind == .directory }
    }
}

/// A backup: paths are `domain/relativePath`.
final class BackupPlace: PlaceFiles {
    let backup: DeviceBackup
    private let entries: [String: DeviceBackup.Entry]
    private let sorted: [String]

    init(_ backup: DeviceBackup) throws {
        self.backup = backup
        var entries: [String: DeviceBackup.Entry] = [:]
        for entry in try backup.files() { entries[entry.domain + "/" + entry.relativePath] = entry }
        self.entries = entries
        sorted = entries.keys.sorted()
    }

    var paths: [String] { sorted }

    func entry(_ path: String) -> DeviceBackup.Entry? { entries[path] }

    func name(_ path: String) -> String { (backup.root as NSString).appendingPathComponent(path) }

    func isFile(_ path: String) -> Bool { entries[path] != nil }

    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let entry = entries[path] else { return nil }
        return DiskPlace().read(backup.storedPath(entry), limit: limit)
    }

    func size(_ path: String) -> Int64? {
        entries[path].flatMap { FileStatus(backup.storedPath($0))?.size }
    }

    func files(under dir: String) -> [(path: String, size: Int64)] {
        let prefix = dir.hasSuffix("/") ? dir : dir + "/"
        return sorted.filter { $0.hasPrefix(prefix) }.map { ($0, size($0) ?? 0) }
    }

    func folders(in dir: String) -> [String] {
        // Domains are a backup's top folders.
        guard dir.isEmpty else { return [] }
        return Array(Set(sorted.compactMap { $0.split(separator: "/").first.map(String.init) })).sorted()
    }
}

/// A zip archive: paths are its entries'.
final class ArchivePlace: PlaceFiles {
    let archive: ZipStoreArchive
    private let sizes: [String: Int64]
    let paths: [String]

    init(_ archive: ZipStoreArchive) {
        self.archive = archive
        var sizes: [String: Int64] = [:]
        for file in archive.files() { sizes[file.path] = Int64(clamping: file.size) }
        self.sizes = sizes
        paths = sizes.keys.sorted()
    }

    func size(_ path: String) -> Int64? { sizes[path] }

    func name(_ path: String) -> String { (archive.path as NSString).appendingPathComponent(path) }

    func isFile(_ path: String) -> Bool { sizes[path] != nil }

    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let size = sizes[path], size <= Int64(limit) else { return nil }
        return try? archive.prefix(path, count: Int(size))
    }

    func files(under dir: String) -> [(path: String, size: Int64)] {
        let prefix = dir.isEmpty || dir.hasSuffix("/") ? dir : dir + "/"
        return paths.filter { $0.hasPrefix(prefix) }.map { ($0, sizes[$0] ?? 0) }
    }

    func folders(in dir: String) -> [String] {
        let prefix = dir.isEmpty || dir.hasSuffix("/") ? dir : dir + "/"
        var found = Set<String>()
        for path in paths where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/") { found.insert(prefix + rest[..<slash]) }
        }
        return found.sorted()
    }
}
