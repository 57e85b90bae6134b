import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-for-byte copies of the files a provocation changes, kept beside the store in
/// `<store>.cdhist-provoke` with a manifest of each file's SHA-256, so that undoing puts every
/// file back exactly (SQLite's backup API rewrites header counters: it cannot serve here).
public enum ProvokeBackup {
    /// A file as it was before the provocation.
    public struct File: Equatable, Sendable {
        /// The file (links resolved, absolute).
        public var path: String
        /// Its copy; nil when the file was not there (undoing removes it).
        public var backup: String?
        /// Its SHA-256 before; nil when it was not there.
        public var sha256: String?
    }

    private struct Manifest: Codable {
        var scenario: String
        var actor: String
        var files: [Entry]
    }

    private struct Entry: Codable {
        var path: String
        /// The copy's name in the folder.
        var copy: String?
        var sha256: String?
    }

    /// The folder holding the backups of a provocation of the store `path`.
    public static func folder(forStore path: String) -> String { absolute(FileStatus.resolvedPath(path)) + ".cdhist-provoke" }

    /// Copies `files` into the store's backup folder and records them; throws when the folder is
    /// there already (an earlier provocation not undone) or a copy differs from its file.
    static func make(store: String, files: [String], scenario: ProvokeScenario, actor: String) throws -> [File] {
        let fm = FileManager.default
        let folder = folder(forStore: store)
        if (try? fm.attributesOfItem(atPath: folder)) != nil { throw ProvokeError.earlierProvocation(path: store, folder: folder) }
        do {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ProvokeError.copyFailed(path: store, reason: "cannot create \(folder) (\(WriteFault.cause(error)))", outcome: "nothing was changed")
        }
        var entries: [Entry] = []
        var made: [File] = []
        do {
            for (i, given) in files.enumerated() {
                let path = absolute(FileStatus.resolvedPath(given))
                guard FileStatus(path) != nil else {
                    entries.append(Entry(path: path, copy: nil, sha256: nil))
                    made.append(File(path: path, backup: nil, sha256: nil))
                    continue
                }
                let name = "\(i + 1)-\(URL(fileURLWithPath: path).lastPathComponent)"
                let copy = folder + "/" + name
                try fm.copyItem(atPath: path, toPath: copy)
                let original = try FileDigest.take(path)?.sha256, copied = try FileDigest.take(copy)?.sha256
                guard let original, original == copied else {
                    throw ProvokeError.copyFailed(path: path, reason: "its copy \(copy) differs from it (was it written meanwhile?)", outcome: "nothing was changed")
                }
                entries.append(Entry(path: path, copy: name, sha256: original))
                made.append(File(path: path, backup: copy, sha256: original))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let manifest = try encoder.encode(Manifest(scenario: scenario.rawValue, actor: actor, files: entries))
            try FileWriter.create(folder + "/manifest.json", contents: manifest, like: nil)
        } catch {
            try? fm.removeItem(atPath: folder)
            if let error = error as? ProvokeError { throw error }
            throw ProvokeError.copyFailed(path: store, reason: "cannot back up into \(folder) (\(WriteFault.cause(error)))", outcome: "nothing was changed")
        }
        return made
    }

    /// Removes the backups of a provocation that changed nothing.
    static func discard(store: String) {
        try? FileManager.default.removeItem(atPath: folder(forStore: store))
    }

    /// Puts back every file the provocation of the store `store` changed, byte for byte, checks each
    /// one's SHA-256, and removes the backups. Refuses while another process has the store open,
    /// and before changing anything when a backup is missing or damaged. Returns the files put
    /// back and those removed (made since: a `-wal`); a file absent before and after is left out.
    public static func undo(store: String) throws -> [File] {
        let fm = FileManager.default
        let folder = folder(forStore: store)
        guard FileStatus(folder) != nil else { throw ProvokeError.nothingToUndo(path: store, folder: folder) }
        if StoreConnection.hasLiveConnection(shm: FileStatus.resolvedPath(store) + "-shm") { throw ProvokeError.storeInUse(path: store) }
        let manifestPath = folder + "/manifest.json"
        guard let data = FileContents.read(manifestPath), let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else {
            throw ProvokeError.damagedBackup(path: store, backup: manifestPath, reason: "is missing or unreadable")
        }
        let files = manifest.files.map { File(path: $0.path, backup: $0.copy.map { folder + "/" + $0 }, sha256: $0.sha256) }
        for file in files {
            guard let backup = file.backup else { continue }
            let digest: String?
            do { digest = try FileDigest.take(backup)?.sha256 } catch { digest = nil }
            guard let digest else { throw ProvokeError.damagedBackup(path: store, backup: backup, reason: "is missing") }
            guard digest == file.sha256 else { throw ProvokeError.damagedBackup(path: store, backup: backup, reason: "is not the file that was copied (its SHA-256 differs)") }
        }
        var acted: [File] = []
        for file in files {
            let outcome: Message = "the backups are kept in \(folder); run \(Control.provokeUndo) again"
            if let backup = file.backup {
                let temporary = "\(file.path).cdhist-undo-\(getpid()).tmp"
                do {
                    try? fm.removeItem(atPath: temporary)
                    try fm.copyItem(atPath: backup, toPath: temporary)
                    guard rename(temporary, file.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                } catch {
                    try? fm.removeItem(atPath: temporary)
                    throw ProvokeError.copyFailed(path: file.path, reason: "cannot put it back (\(WriteFault.cause(error)))", outcome: outcome)
                }
                guard (try? FileDigest.take(file.path))??.sha256 == file.sha256 else {
                    throw ProvokeError.copyFailed(path: file.path, reason: "put back, it does not have its SHA-256 of before", outcome: outcome)
                }
                acted.append(file)
            } else if (try? fm.attributesOfItem(atPath: file.path)) != nil {
                acted.append(file)
                do { try fm.removeItem(atPath: file.path) } catch {
                    throw ProvokeError.copyFailed(path: file.path, reason: "cannot remove it (\(WriteFault.cause(error)))", outcome: outcome)
                }
            }
        }
        try? fm.removeItem(atPath: folder)
        return acted
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
