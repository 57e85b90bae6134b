import Foundation
import HistoryReading

/// A file an examination reads, and what it is to the store.
public struct EvidenceInput: Equatable, Sendable {
    public enum Role: String, Sendable {
        case store, wal, shm, journal, defaults, token, model, config
        /// A backup's `Manifest.db`, through which a store inside the backup is found.
        case backupManifest = "backup manifest"
        /// The zip a store inside an archive is unpacked from.
        case archive
    }

    /// A file inside an archive, read from it.
    public struct Member: Equatable, Sendable {
        public var role: Role
        /// Its path in the archive.
        public var path: String
    }

    public var role: Role
    /// The file on disk (for a name inside a backup, the backup's file under its hashed name).
    public var path: String
    /// For an archive: the files in it that are read (hashed too, beside the archive's own hash).
    public var members: [Member]

    public init(role: Role, path: String, members: [Member] = []) {
        self.role = role
        self.path = path
        self.members = members
    }

    /// The files the store `name` is read from: the main file, its `-wal`, `-shm` and `-journal`
    /// (also when absent: one that appears while it is read is a change; links resolved as
    /// SQLite resolves them); for a name inside a backup,
    /// its `Manifest.db` and the backup's files of the store; inside a zip, the zip (its members
    /// the store's files in it).
    public static func store(_ name: String) -> [EvidenceInput] {
        if let packed = PackedReference.resolve(name) {
            let manifest =
                packed.kind == .backup
                ? [EvidenceInput(role: .backupManifest, path: packed.place + "/Manifest.db")] : []
            return manifest + stored(packed, [(.store, ""), (.wal, "-wal"), (.shm, "-shm")])
        }
        // SQLite keeps them beside the main file, links resolved: named as given when that is the same.
        let location = FileStatus(name) == nil ? name : FileStatus.resolvedPath(name)
        var inputs = [EvidenceInput(role: .store, path: name)]
        for (role, suffix) in [(Role.wal, "-wal"), (.shm, "-shm"), (.journal, "-journal")] {
            let given = name + suffix
            inputs.append(
                EvidenceInput(
                    role: role,
                    path: location == name || FileStatus.sameFile(given, location + suffix) ? given : location + suffix)
            )
        }
        return inputs
    }

    /// `path` as an input of `role`: the file itself, every regular file inside a folder (a
    /// `.momd`), or for a name inside a backup or a zip, the file it is stored as.
    public static func other(_ role: Role, _ path: String) -> [EvidenceInput] {
        if let packed = PackedReference.resolve(path) { return stored(packed, [(role, "")]) }
        guard FileStatus(path)?.kind == .directory else {
            return FileStatus(path) == nil ? [] : [EvidenceInput(role: role, path: path)]
        }
        let files = (FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? [])
            .map { path + "/" + $0 }
            .filter { FileStatus($0)?.kind == .regular }
            .sorted()
        return files.map { EvidenceInput(role: role, path: $0) }
    }

    /// The files on disk that hold `packed` (with each suffix, as its role): the zip, or the
    /// backup's files under their hashed names (those the backup lists).
    private static func stored(_ packed: PackedReference, _ files: [(Role, String)]) -> [EvidenceInput] {
        switch packed.kind {
        case .archive:
            return [
                EvidenceInput(
                    role: .archive, path: packed.place,
                    members: files.map { Member(role: $0.0, path: packed.inner + $0.1) })
            ]
        case .backup:
            guard let backup = try? DeviceBackup(root: packed.place) else { return [] }
            let (domain, relative) = packed.backupPath
            return files.compactMap { role, suffix in
                (try? backup.entry(domain: domain, relativePath: relative + suffix)).map {
                    EvidenceInput(role: role, path: backup.storedPath($0))
                }
            }
        }
    }

    /// What an examination of the store `name` reads: its files, the defaults plists and token
    /// files, and `others` (a model, a configuration; nil: none given).
    public static func examination(
        store name: String, defaults: [String], tokens: [String], others: [(Role, String?)] = []
    ) -> [EvidenceInput] {
        store(name) + defaults.flatMap { other(.defaults, $0) } + tokens.flatMap { other(.token, $0) }
            + others.flatMap { role, path in path.map { other(role, $0) } ?? [] }
    }
}
