import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-for-byte copies of the files a provocation changes, kept beside the store in
/// `<store>.cdhist-provoke` with a manifest of each file's SHA-256, so that undoing puts every
/// file back exactly (SQLite's backup API rewrites header counters: it cannot serve here).
/// Every copy, and the folder, is flushed to the disk before anything is changed.
public enum ProvokeBackup {
    /// A file as it was before the provocation.
    public struct File: Equatable, Sendable {
        /// The file (links resolved, absolute).
        public var path: String
        /// Its copy; nil when the file was not there (undoing removes it).
        public var backup: String?
        /// Its SHA-256 before; nil when it was not there.
        public var sha256: String?

        /// Whether the file is as it was before: the same bytes, or still absent.
        var isUnchanged: Bool {
            guard let sha256 else { return (try? FileManager.default.attributesOfItem(atPath: path)) == nil }
            return (try? FileDigest.take(path))??.sha256 == sha256
        }
    }

    /// What an undo did: the files put back and those removed (made since: a `-wal`), or, for
    /// copies never finished (the provocation was stopped before it changed anything), nothing.
    public struct Undone: Equatable, Sendable {
        public var files: [File]
        /// The copies were never finished: nothing had been changed; they were removed.
        public var unfinished: Bool
    }

    private struct Manifest: Codable {
        var store: String
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

    static let manifestName = "manifest.json"

    /// The folder holding the backups of a provocation of the store `path`.
    public static func folder(forStore path: String) -> String { FileStatus.resolvedPath(path) + ".cdhist-provoke" }

    /// The store's own files: itself, and where its `-wal`, `-shm` and `-journal` are.
    static func storeFiles(_ store: String) -> [String] {
        let location = FileStatus.resolvedPath(store)
        return [location, location + "-wal", location + "-shm", location + "-journal"]
    }

    /// Copies `files` into the store's backup folder, flushed to the disk, and records them last;
    /// throws when the folder is there already (an earlier provocation not undone) or a copy
    /// differs from its file. Nothing is changed before it returns: a signal that ends the process
    /// meanwhile leaves copies without a manifest, which an undo removes. (It watches no signal:
    /// on Linux a second watch of a signal in one process, the purge's, would not see it.)
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
                let path = FileStatus.resolvedPath(given)
                guard let status = FileStatus(path) else {
                    entries.append(Entry(path: path, copy: nil, sha256: nil))
                    made.append(File(path: path, backup: nil, sha256: nil))
                    continue
                }
                let name = "\(i + 1)-\(URL(fileURLWithPath: path).lastPathComponent)"
                let copy = folder + "/" + name
                try FileWriter.copy(path, to: copy, like: status)
                let original = try FileDigest.take(path)?.sha256, copied = try FileDigest.take(copy)?.sha256
                guard let original, original == copied else {
                    throw ProvokeError.copyFailed(path: path, reason: "its copy \(copy) differs from it (was it written meanwhile?)", outcome: "nothing was changed")
                }
                entries.append(Entry(path: path, copy: name, sha256: original))
                made.append(File(path: path, backup: copy, sha256: original))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let manifest = try encoder.encode(Manifest(store: FileStatus.resolvedPath(store), scenario: scenario.rawValue, actor: actor, files: entries))
            try FileWriter.create(folder + "/" + manifestName, contents: manifest, like: nil)
            FileWriter.syncFolder(folder)
            FileWriter.syncFolder(URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        } catch {
            try? fm.removeItem(atPath: folder)
            if error is ProvokeError || error is RepairError { throw error }
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
    /// and, before changing anything, a backup that is missing or damaged or a manifest naming files
    /// that are not the store's or the one merge-state file a provocation rewrites. The store's
    /// `-wal`, `-shm` and `-journal` go first, then the store comes back, then they do: stopped
    /// between two steps, the store is never beside another state's log.
    public static func undo(store: String, stops: StopRequests? = nil) throws -> Undone {
        let fm = FileManager.default
        let folder = folder(forStore: store)
        guard (try? fm.attributesOfItem(atPath: folder)) != nil else { throw ProvokeError.nothingToUndo(path: store, folder: folder) }
        let manifestPath = folder + "/" + manifestName
        guard FileStatus(manifestPath) != nil else {
            // The manifest is written last, before anything changes: without it the copies were never finished.
            try? fm.removeItem(atPath: folder)
            return Undone(files: [], unfinished: true)
        }
        if StoreConnection.hasLiveConnection(shm: FileStatus.resolvedPath(store) + "-shm") { throw ProvokeError.storeInUse(path: store) }
        let files = try validated(manifestPath, store: store, folder: folder)
        let stop = WriteInterruption(stops: stops)
        defer { stop.cancel() }
        let outcome: Message = "the backups are kept in \(folder); run \(Control.provokeUndo) again"
        let companions = Set(storeFiles(store).dropFirst())
        var acted: [File] = []
        // The store's logs go first, whatever they will be.
        for file in files where companions.contains(file.path) && (try? fm.attributesOfItem(atPath: file.path)) != nil {
            try stop.check(path: store, outcome: outcome)
            do { try fm.removeItem(atPath: file.path) } catch {
                throw ProvokeError.copyFailed(path: file.path, reason: "cannot remove it (\(WriteFault.cause(error)))", outcome: outcome)
            }
            if file.backup == nil { acted.append(file) }
        }
        // Then the store, then its logs as they were, then the merge-state file.
        let order = files.filter { $0.backup != nil }.sorted { rank($0.path, store: store) < rank($1.path, store: store) }
        for file in order {
            guard let backup = file.backup else { continue }
            try stop.check(path: store, outcome: outcome)
            let temporary = "\(file.path).cdhist-undo-\(getpid()).tmp"
            do {
                try? fm.removeItem(atPath: temporary)
                try FileWriter.copy(backup, to: temporary, like: FileStatus(file.path) ?? FileStatus(backup))
                guard rename(temporary, file.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            } catch {
                try? fm.removeItem(atPath: temporary)
                throw ProvokeError.copyFailed(path: file.path, reason: "cannot put it back (\(WriteFault.cause(error)))", outcome: outcome)
            }
            FileWriter.syncFolder(URL(fileURLWithPath: file.path).deletingLastPathComponent().path)
            guard file.isUnchanged else {
                throw ProvokeError.copyFailed(path: file.path, reason: "put back, it does not have its SHA-256 of before", outcome: outcome)
            }
            acted.append(file)
        }
        try? fm.removeItem(atPath: folder)
        return Undone(files: acted, unfinished: false)
    }

    /// The manifest's files, each checked: the store's own files, and at most one other, a
    /// merge-state file (a plist or JSON) with a copy; every copy inside the folder with its SHA-256.
    private static func validated(_ manifestPath: String, store: String, folder: String) throws -> [File] {
        guard let data = FileContents.read(manifestPath), let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else {
            throw ProvokeError.damagedBackup(path: store, backup: manifestPath, reason: "is unreadable")
        }
        func refuse(_ why: String) -> ProvokeError { .damagedBackup(path: store, backup: manifestPath, reason: why) }
        guard manifest.store == FileStatus.resolvedPath(store) else { throw refuse("is the manifest of another store (\(manifest.store))") }
        let own = Set(storeFiles(store))
        let others = manifest.files.filter { !own.contains($0.path) }
        guard others.count <= 1, others.allSatisfy({ $0.copy != nil }) else { throw refuse("names files that are not the store's") }
        var files: [File] = []
        for entry in manifest.files {
            if let name = entry.copy, name.contains("/") || name.hasPrefix(".") { throw refuse("names a copy outside its folder") }
            let file = File(path: entry.path, backup: entry.copy.map { folder + "/" + $0 }, sha256: entry.sha256)
            if !own.contains(entry.path), let bytes = FileContents.read(entry.path) {
                // A provocation rewrites a plist or a token, never another kind of file.
                let head = [UInt8](bytes.prefix(8))
                guard StoreSurroundings.mayHoldToken(head) else { throw refuse("names \(entry.path), which is no plist or JSON token") }
            }
            if let backup = file.backup {
                let digest = try? FileDigest.take(backup)?.sha256
                guard let digest else { throw ProvokeError.damagedBackup(path: store, backup: backup, reason: "is missing") }
                guard digest == file.sha256 else {
                    throw ProvokeError.damagedBackup(path: store, backup: backup, reason: "is not the file that was copied (its SHA-256 differs)")
                }
            }
            files.append(file)
        }
        return files
    }

    /// The order files are put back in: the store, its logs, then the merge-state file.
    private static func rank(_ path: String, store: String) -> Int {
        storeFiles(store).firstIndex(of: path) ?? 4
    }
}
