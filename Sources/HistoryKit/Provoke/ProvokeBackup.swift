import Foundation
import HistoryPlaces
import HistoryReading
import HistoryWrites

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
        /// What was written since the provocation and is gone now (an undo with `force`).
        public var discarded: Drift? = nil
    }

    /// What changed since the provocation, which undoing it would lose: history transactions
    /// written since, and the files (not the `-shm`, an index SQLite rebuilds) that differ from
    /// what the provocation left.
    public struct Drift: Equatable, Sendable {
        /// Transactions newer than the newest the provocation left: number and author.
        public var transactions: [(number: Int64, author: String?)]
        /// Transactions written since in all (``transactions`` holds the first few).
        public var transactionCount: Int
        /// Files that differ from what the provocation left.
        public var files: [String]
        public var isEmpty: Bool { transactionCount == 0 && files.isEmpty }

        /// What it holds, for people: `1 transaction written since (#35 by 'widget') and changes to …`.
        public var lost: String {
            var parts: [String] = []
            if transactionCount > 0 {
                let named = transactions.map { t in "#\(t.number)" + (t.author.map { " by '\($0)'" } ?? "") }
                let more = transactionCount > named.count ? ", … and \(transactionCount - named.count) more" : ""
                parts.append(
                    "\(plural(transactionCount, "transaction")) written since (\(named.joined(separator: ", "))\(more))"
                )
            }
            if !files.isEmpty { parts.append("changes to \(files.joined(separator: ", "))") }
            return parts.joined(separator: " and ")
        }

        public static func == (a: Drift, b: Drift) -> Bool {
            a.transactionCount == b.transactionCount && a.files == b.files
                && a.transactions.map(\.number) == b.transactions.map(\.number)
        }
    }

    private struct Manifest: Codable {
        var store: String
        var scenario: String
        var actor: String
        var files: [Entry]
        /// The store's newest transaction once the provocation was done (nil: none, or not recorded).
        var newestTransactionAfter: Int64?
        /// Whether the state the provocation left was recorded (``Entry/after``): a provocation
        /// stopped before it finished, or made by an earlier version, has none.
        var recordedAfter: Bool?
    }

    private struct Entry: Codable {
        var path: String
        /// The copy's name in the folder.
        var copy: String?
        var sha256: String?
        /// Its SHA-256 once the provocation was done (nil: absent then, or not recorded).
        var after: String?
    }

    static let manifestName = "manifest.json"

    /// The folder holding the backups of a provocation of the store `path`.
    public static func folder(forStore path: String) -> String { FileStatus.resolvedPath(path) + ".cdhist-provoke" }

    /// Copies `files` into the store's backup folder, flushed to the disk, and records them last;
    /// throws when the folder is there already (an earlier provocation not undone) or a copy
    /// differs from its file. Nothing is changed before it returns: a signal that ends the process
    /// meanwhile leaves copies without a manifest, which an undo removes. (It watches no signal:
    /// on Linux a second watch of a signal in one process, the purge's, would not see it.)
    static func make(store: String, files: [String], scenario: ProvokeScenario, actor: String) throws -> [File] {
        let fm = FileManager.default
        let folder = folder(forStore: store)
        if (try? fm.attributesOfItem(atPath: folder)) != nil {
            throw ProvokeError.earlierProvocation(path: store, folder: folder)
        }
        do {
            try fm.createDirectory(
                atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ProvokeError.copyFailed(
                path: store, reason: "cannot create \(folder) (\(WriteFault.cause(error)))",
                outcome: "nothing was changed")
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
                let original = try FileDigest.take(path)?.sha256
                let copied = try FileDigest.take(copy)?.sha256
                guard let original, original == copied else {
                    throw ProvokeError.copyFailed(
                        path: path, reason: "its copy \(copy) differs from it (was it written meanwhile?)",
                        outcome: "nothing was changed")
                }
                entries.append(Entry(path: path, copy: name, sha256: original))
                made.append(File(path: path, backup: copy, sha256: original))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let manifest = try encoder.encode(
                Manifest(
                    store: FileStatus.resolvedPath(store), scenario: scenario.rawValue, actor: actor, files: entries))
            try FileWriter.create(folder + "/" + manifestName, contents: manifest, like: nil)
            FileWriter.syncFolder(folder)
            FileWriter.syncFolder(URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        } catch {
            try? fm.removeItem(atPath: folder)
            if error is ProvokeError || error is RepairError { throw error }
            throw ProvokeError.copyFailed(
                path: store, reason: "cannot back up into \(folder) (\(WriteFault.cause(error)))",
                outcome: "nothing was changed")
        }
        return made
    }

    /// Records in the manifest what the provocation left: each file's SHA-256 and the store's
    /// newest transaction, so that an undo can tell what was written since. Written atomically;
    /// when it cannot be, the undo acts as for a provocation made before this was recorded.
    static func recordAfter(store: String, stops: StopRequests?) {
        let manifestPath = folder(forStore: store) + "/" + manifestName
        // Unread, the newest transaction would make every transaction look written since: record nothing then.
        guard let data = FileContents.read(manifestPath),
            var manifest = try? JSONDecoder().decode(Manifest.self, from: data),
            let newest = try? newestTransaction(store)
        else { return }
        for i in manifest.files.indices {
            manifest.files[i].after = (try? FileDigest.take(manifest.files[i].path))??.sha256
        }
        manifest.newestTransactionAfter = newest
        manifest.recordedAfter = true
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let bytes = try? encoder.encode(manifest) else { return }
        try? FileReplacement.replace(
            manifestPath, expecting: data, with: bytes, stop: WriteInterruption(stops: stops),
            outcome: "the undo cannot tell what changed since")
    }

    /// The newest transaction of `store`, read without writing beside it; nil when it has none.
    private static func newestTransaction(_ store: String) throws -> Int64? {
        let opened = try HistoryStore.open(store)
        defer { opened.close() }
        let newest = try opened.numberBounds().transaction
        return newest > 0 ? newest : nil
    }

    /// What changed since the provocation of `store` was done; nil when its state then was not
    /// recorded (nothing can be told) or there is no provocation to undo.
    public static func drift(store: String) throws -> Drift? {
        let manifestPath = folder(forStore: store) + "/" + manifestName
        guard let data = FileContents.read(manifestPath),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data),
            manifest.recordedAfter == true
        else { return nil }
        let shm = FileStatus.resolvedPath(store) + "-shm"
        let files = manifest.files.filter { $0.path != shm && (try? FileDigest.take($0.path))??.sha256 != $0.after }
            .map(\.path)
        var transactions: [(number: Int64, author: String?)] = []
        var count = 0
        if FileStatus(store) != nil, let opened = try? HistoryStore.open(store) {
            defer { opened.close() }
            let query = HistoryQuery(after: manifest.newestTransactionAfter.map { .transaction($0) })
            try? opened.readTransactions(query, decoder: nil) {
                try $0.forEach { tx, _ in
                    count += 1
                    if transactions.count < 5 { transactions.append((tx.number, tx.author)) }
                }
            }
        }
        return Drift(transactions: transactions, transactionCount: count, files: files)
    }

    /// Removes the backups of a provocation that changed nothing.
    static func discard(store: String) {
        try? FileManager.default.removeItem(atPath: folder(forStore: store))
    }

    /// What ``undo(store:force:stops:)`` would do now, changing nothing: the files it would put
    /// back or remove, and what was written since the provocation (which the undo refuses to lose
    /// unless forced). Throws as the undo would for a missing, damaged or foreign backup.
    public static func undoPreview(store: String) throws -> Undone {
        let (folder, manifest) = try backups(of: store)
        guard let manifest else { return Undone(files: [], unfinished: true) }
        let files = try validated(manifest, store: store, folder: folder).filter {
            $0.backup != nil || (try? FileManager.default.attributesOfItem(atPath: $0.path)) != nil
        }
        return Undone(files: files, unfinished: false, discarded: try changedSince(store))
    }

    /// The folder of `store`'s provocation backups, and its manifest (nil: the copies were never
    /// finished, as the manifest is written last, before anything changes); throws when there is none.
    private static func backups(of store: String) throws -> (folder: String, manifest: String?) {
        let folder = folder(forStore: store)
        guard (try? FileManager.default.attributesOfItem(atPath: folder)) != nil else {
            throw ProvokeError.nothingToUndo(path: store, folder: folder)
        }
        let manifest = folder + "/" + manifestName
        return (folder, FileStatus(manifest) != nil ? manifest : nil)
    }

    /// What was written since the provocation of `store` (``drift(store:)``), nil when nothing was.
    private static func changedSince(_ store: String) throws -> Drift? {
        try drift(store: store).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Puts back every file the provocation of the store `store` changed, byte for byte, checks each
    /// one's SHA-256, and removes the backups. Refuses while another process has the store open,
    /// and, before changing anything, a backup that is missing or damaged or a manifest naming files
    /// that are not the store's or the one merge-state file a provocation rewrites. The store's
    /// `-wal`, `-shm` and `-journal` go first, then the store comes back, then they do: stopped
    /// between two steps, the store is never beside another state's log.
    ///
    /// When something changed since the provocation was done (``drift(store:)``: the app wrote
    /// transactions, a file differs), undoing would lose it: it is refused, with what would be
    /// lost, unless `force`. The undo stops between two steps when `stops` (the caller's) ask.
    public static func undo(store: String, force: Bool = false, stops: StopRequests? = nil) throws -> Undone {
        let fm = FileManager.default
        let (folder, manifest) = try backups(of: store)
        guard let manifest else {
            try? fm.removeItem(atPath: folder)
            return Undone(files: [], unfinished: true)
        }
        if StoreConnection.hasLiveConnection(shm: FileStatus.resolvedPath(store) + "-shm") {
            throw ProvokeError.storeInUse(path: store)
        }
        let files = try validated(manifest, store: store, folder: folder)
        let drift = try changedSince(store)
        if !force, let drift { throw ProvokeError.changedSince(path: store, drift: drift) }
        let stop = WriteInterruption(stops: stops)
        defer { stop.cancel() }
        let outcome: Message = "the backups are kept in \(folder); run \(Control.provokeUndo) again"
        let companions = Set(StoreFiles.paths(of: store).dropFirst())
        var acted: [File] = []
        // The store's logs go first, whatever they will be.
        for file in files where companions.contains(file.path) && (try? fm.attributesOfItem(atPath: file.path)) != nil {
            try stop.check(path: store, outcome: outcome)
            do { try fm.removeItem(atPath: file.path) } catch {
                throw ProvokeError.copyFailed(
                    path: file.path, reason: "cannot remove it (\(WriteFault.cause(error)))", outcome: outcome)
            }
            if file.backup == nil { acted.append(file) }
        }
        // Then the store, then its logs as they were, then the merge-state file.
        let order = files.filter { $0.backup != nil }.sorted {
            rank($0.path, store: store) < rank($1.path, store: store)
        }
        for file in order {
            guard let backup = file.backup else { continue }
            try stop.check(path: store, outcome: outcome)
            let temporary = "\(file.path).cdhist-undo-\(getpid()).tmp"
            do {
                try? fm.removeItem(atPath: temporary)
                try FileWriter.copy(backup, to: temporary, like: FileStatus(file.path) ?? FileStatus(backup))
                guard rename(temporary, file.path) == 0 else {
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
            } catch {
                try? fm.removeItem(atPath: temporary)
                throw ProvokeError.copyFailed(
                    path: file.path, reason: "cannot put it back (\(WriteFault.cause(error)))", outcome: outcome)
            }
            FileWriter.syncFolder(URL(fileURLWithPath: file.path).deletingLastPathComponent().path)
            guard file.isUnchanged else {
                throw ProvokeError.copyFailed(
                    path: file.path, reason: "put back, it does not have its SHA-256 of before", outcome: outcome)
            }
            acted.append(file)
        }
        try? fm.removeItem(atPath: folder)
        return Undone(files: acted, unfinished: false, discarded: drift)
    }

    /// The manifest's files, each checked: the store's own files, and at most one other, a
    /// merge-state file (a plist or JSON) with a copy; every copy inside the folder with its SHA-256.
    private static func validated(_ manifestPath: String, store: String, folder: String) throws -> [File] {
        guard let data = FileContents.read(manifestPath),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else {
            throw ProvokeError.damagedBackup(path: store, backup: manifestPath, reason: "is unreadable")
        }
        func refuse(_ why: String) -> ProvokeError { .damagedBackup(path: store, backup: manifestPath, reason: why) }
        guard manifest.store == FileStatus.resolvedPath(store) else {
            throw refuse("is the manifest of another store (\(manifest.store))")
        }
        let own = Set(StoreFiles.paths(of: store))
        let others = manifest.files.filter { !own.contains($0.path) }
        guard others.count <= 1, others.allSatisfy({ $0.copy != nil }) else {
            throw refuse("names files that are not the store's")
        }
        var files: [File] = []
        for entry in manifest.files {
            if let name = entry.copy, name.contains("/") || name.hasPrefix(".") {
                throw refuse("names a copy outside its folder")
            }
            let file = File(path: entry.path, backup: entry.copy.map { folder + "/" + $0 }, sha256: entry.sha256)
            if !own.contains(entry.path), let bytes = FileContents.read(entry.path) {
                // A provocation rewrites a plist or a token, never another kind of file.
                let head = [UInt8](bytes.prefix(8))
                guard StoreSurroundings.mayHoldToken(head) else {
                    throw refuse("names \(entry.path), which is no plist or JSON token")
                }
            }
            if let backup = file.backup {
                let digest = try? FileDigest.take(backup)?.sha256
                guard let digest else {
                    throw ProvokeError.damagedBackup(path: store, backup: backup, reason: "is missing")
                }
                guard digest == file.sha256 else {
                    throw ProvokeError.damagedBackup(
                        path: store, backup: backup, reason: "is not the file that was copied (its SHA-256 differs)")
                }
            }
            files.append(file)
        }
        return files
    }

    /// The order files are put back in: the store, its logs, then the merge-state file.
    private static func rank(_ path: String, store: String) -> Int {
        StoreFiles.paths(of: store).firstIndex(of: path) ?? 4
    }
}
