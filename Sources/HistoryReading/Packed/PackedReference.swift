import Foundation

/// A name for a file inside a backup or a zip archive: the place's path followed by the file's
/// path inside it, as if the place were a folder (`BACKUP/AppDomainGroup-group.x/Library/x.sqlite`,
/// `dump.zip/private/var/…/x.sqlite`). `stores` prints such names; every command takes them.
public struct PackedReference: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case backup, archive
    }

    public var kind: Kind
    /// The backup folder or the zip file.
    public var place: String
    /// The path inside it: for a backup, the domain, a slash and the relative path.
    public var inner: String

    package init(kind: Kind, place: String, inner: String) {
        self.kind = kind
        self.place = place
        self.inner = inner
    }

    /// The name every command takes.
    public var name: String { place + "/" + inner }

    /// What `name` refers to when it goes through a backup folder or a zip file; nil when it is
    /// a plain path (whether or not a file is there). Only the path's existing beginning is
    /// looked at, and the rest is kept as written (the path inside the place).
    public static func resolve(_ name: String) -> PackedReference? {
        guard !name.isEmpty, FileStatus(name) == nil else { return nil }
        var end = name.endIndex
        while let slash = name[..<end].lastIndex(of: "/") {
            end = slash
            let place = String(name[..<slash])
            let inner = String(name[name.index(after: slash)...])
            guard !place.isEmpty, let status = FileStatus(place) else { continue }
            switch status.kind {
            case .directory where DeviceBackup.isBackup(place):
                return inner.contains("/") ? PackedReference(kind: .backup, place: place, inner: inner) : nil
            case .regular where ZipStoreArchive.isArchive(place) && !inner.isEmpty:
                return PackedReference(kind: .archive, place: place, inner: inner)
            default:
                return nil
            }
        }
        return nil
    }

    /// For a backup: the domain and the relative path.
    package var backupPath: (domain: String, relativePath: String) {
        let parts = inner.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
}

/// Where a packed store's files are read: the backup's own file, when it has no `-wal`, or a
/// private folder the main file and its `-wal` were copied to (which the connection owns).
package struct PackedStoreFiles {
    var path: String
    var assembledIn: URL?
    /// The size of the `-shm` the backup or archive holds beside the store (never copied: SQLite
    /// reads the copy without it); nil when it holds none.
    var shmSize: Int64?

    /// Finds the files of the store `reference` names, copying them privately when they must sit
    /// together; `backup` or `archive`, when given, is the place already open.
    package static func locate(
        _ reference: PackedReference, backup: DeviceBackup? = nil, archive: ZipStoreArchive? = nil
    )
        throws -> PackedStoreFiles
    {
        switch reference.kind {
        case .backup:
            let backup = try backup ?? DeviceBackup(root: reference.place)
            let (domain, relative) = reference.backupPath
            guard let main = try backup.entry(domain: domain, relativePath: relative) else {
                throw PlaceError.notInPlace(name: reference.name, place: "the backup \(reference.place)")
            }
            let wal = try backup.entry(domain: domain, relativePath: relative + "-wal")
            for entry in [main, wal].compactMap({ $0 }) where FileStatus(backup.storedPath(entry))?.kind != .regular {
                throw PlaceError.unreadableBackup(
                    path: reference.place,
                    reason:
                        """
                        \(domain)/\(entry.relativePath) is listed in Manifest.db, but \(backup.storedPath(entry)) \
                        is not a regular file
                        """
                )
            }
            let shm = (try? backup.entry(domain: domain, relativePath: relative + "-shm")).flatMap {
                FileStatus(backup.storedPath($0))?.size
            }
            guard let wal else {
                return PackedStoreFiles(path: backup.storedPath(main), assembledIn: nil, shmSize: shm)
            }
            var files = try assemble(reference) { target in
                try FileManager.default.copyItem(atPath: backup.storedPath(main), toPath: target)
                try FileManager.default.copyItem(atPath: backup.storedPath(wal), toPath: target + "-wal")
            }
            files.shmSize = shm
            return files
        case .archive:
            let archive = try archive ?? ZipStoreArchive(path: reference.place)
            guard archive.contains(reference.inner) else {
                throw PlaceError.notInPlace(name: reference.name, place: "the archive \(reference.place)")
            }
            var files = try assemble(reference) { target in
                try archive.extract(reference.inner, to: target)
                if archive.contains(reference.inner + "-wal") {
                    try archive.extract(reference.inner + "-wal", to: target + "-wal")
                }
            }
            files.shmSize = archive.size(reference.inner + "-shm")
            return files
        }
    }

    /// A private folder (mode 700) with the store written into it by `write`; a failure names
    /// the store and what could not be written.
    private static func assemble(_ reference: PackedReference, _ write: (String) throws -> Void) throws
        -> PackedStoreFiles
    {
        let fm = FileManager.default
        let dir: URL
        do {
            dir = try PrivateFolder.make("cdhist-packed-")
        } catch {
            throw PlaceError.copyFailed(
                name: reference.name, folder: fm.temporaryDirectory.path, reason: error.localizedDescription)
        }
        let target = dir.appendingPathComponent("store.sqlite").path
        do {
            try write(target)
            for suffix in ["", "-wal"] where fm.fileExists(atPath: target + suffix) {
                try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target + suffix)
            }
        } catch let error as PlaceError {
            try? fm.removeItem(at: dir)
            throw error
        } catch {
            try? fm.removeItem(at: dir)
            throw PlaceError.copyFailed(name: reference.name, folder: dir.path, reason: error.localizedDescription)
        }
        return PackedStoreFiles(path: target, assembledIn: dir)
    }
}
