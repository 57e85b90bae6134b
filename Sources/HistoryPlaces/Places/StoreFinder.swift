import Foundation
import HistoryReading

/// Finds Core Data stores with history under places: folders (searched recursively; a
/// simulator device set, one device, an `.xcappdata` and a Mac container are folders), iOS
/// backups and zip archives (named, or found in a folder as `.zip` files). Only file headers,
/// schemas and indexes are read.
public enum StoreFinder {
    /// The places looked in when none is given: on macOS the simulators' device sets (Xcode's
    /// and its Previews'), and the Mac's app and group containers; elsewhere the current folder.
    public static func defaultPlaces(home: String = NSHomeDirectory()) -> [String] {
        #if os(macOS)
            return [
                "Library/Developer/CoreSimulator/Devices",
                "Library/Developer/Xcode/UserData/Previews/Simulator Devices",
                "Library/Containers", "Library/Group Containers",
            ]
            .map { PathText.join(home, $0) }
            .filter { FileStatus($0)?.kind == .directory }
        #else
            return ["."]
        #endif
    }

    /// Every history store under `places`; `progress` is told how many files were examined.
    /// `zipsInFolders`: also search the `.zip` files found in folders (a case folder of
    /// extractions); left out for the default places, whose zips are no one's evidence.
    public static func find(in places: [String], zipsInFolders: Bool = true, progress: (Int) -> Void = { _ in })
        -> StoreListing
    {
        withoutActuallyEscaping(progress) { progress in
            var search = Search(progress: progress, zipsInFolders: zipsInFolders)
            for place in places { search.look(in: place) }
            let stores = search.stores.sorted {
                ($0.newest ?? -.infinity, $1.name) > ($1.newest ?? -.infinity, $0.name)
            }
            return StoreListing(stores: stores, problems: search.problems, filesExamined: search.examined)
        }
    }

    private struct Search {
        var progress: (Int) -> Void
        let zipsInFolders: Bool
        var stores: [FoundStore] = []
        var problems: [PlaceProblem] = []
        var examined = 0
        /// Stores seen: a file on disk by device and inode (a link is the same store), else by name.
        private var seen = Set<String>()

        init(progress: @escaping (Int) -> Void, zipsInFolders: Bool) {
            self.progress = progress
            self.zipsInFolders = zipsInFolders
        }

        mutating func look(in place: String) {
            guard let status = FileStatus(place) else {
                problems.append(
                    PlaceProblem(name: place, problem: FileAccess.whyUnreadable(place) ?? "no such file or folder"))
                return
            }
            if status.kind == .regular {
                if ZipStoreArchive.isArchive(place) { lookInArchive(place) } else { consider(place, status: status) }
            } else if status.kind == .directory {
                if DeviceBackup.isBackup(place) { lookInBackup(place) } else { walk(place) }
            } else {
                problems.append(
                    PlaceProblem(
                        name: place, problem: "not a folder, a file or an archive but \(status.kind.description)"))
            }
        }

        private mutating func walk(_ root: String) {
            var unreadable: [PlaceProblem] = []
            let base = URL(fileURLWithPath: root)
            // Folders that cannot be listed (permissions; on macOS, other apps' data) are said, not skipped silently.
            guard
                let enumerator = FileManager.default.enumerator(
                    at: base, includingPropertiesForKeys: nil, options: [],
                    errorHandler: { url, error in
                        unreadable.append(
                            PlaceProblem(
                                name: url.path,
                                problem:
                                    """
                                    cannot be listed \
                                    (\(FileAccess.whyUnreadable(url.path) ?? error.localizedDescription))
                                    """
                            ))
                        return true
                    })
            else {
                problems.append(PlaceProblem(name: root, problem: FileAccess.whyUnreadable(root) ?? "cannot be listed"))
                return
            }
            // The enumerator may give the folder's real path (macOS: /private/tmp for /tmp).
            let bases = Set([base.path, base.resolvingSymlinksInPath().path]).map { $0.hasSuffix("/") ? $0 : $0 + "/" }
            while let url = enumerator.nextObject() as? URL {
                guard let start = bases.first(where: { url.path.hasPrefix($0) }) else { continue }
                let relative = String(url.path.dropFirst(start.count))
                let path = root == "." ? relative : PathText.join(root, relative)
                let name = PathText.last(relative)
                guard let status = FileStatus(path) else { continue }
                if status.kind == .directory {
                    // An app's bundle (and a simulator's Bundle containers) holds what the app
                    // shipped, not what it wrote.
                    if name.hasSuffix(".app")
                        || (name == "Bundle" && PathText.last(PathText.parent(relative)) == "Containers")
                        || PathText.isCdhistCopy(name)
                    {
                        enumerator.skipDescendants()
                    } else if DeviceBackup.isBackup(path) {
                        enumerator.skipDescendants()
                        lookInBackup(path)
                    }
                    continue
                }
                if status.kind == .regular { consider(path, status: status) }
            }
            problems += unreadable
        }

        /// A file on disk: a store when its header says SQLite and it has history tables.
        private mutating func consider(_ path: String, status: FileStatus) {
            let size = status.size
            tick()
            let name = PathText.last(path)
            guard !PathText.isCompanion(name), !PathText.isCdhistCopy(name),
                let head = DiskPlace().head(path, count: 16)
            else { return }
            guard PathText.isSQLite(head) else {
                // A case folder of extraction zips: each searched as when named (not every zip-based
                // file: an .ipa or an .xlsx holds no app data).
                if zipsInFolders, PathText.fileExtension(name) == "zip", ZipStoreArchive.isArchive(path) {
                    lookInArchive(path)
                    return
                }
                if size > 0, ["sqlite", "store", "sqlite3"].contains(PathText.fileExtension(name)) {
                    problems.append(PlaceProblem(name: path, problem: "named like a store, but not an SQLite file"))
                }
                return
            }
            guard seen.insert("\(status.device):\(status.inode)").inserted else { return }
            glance(
                name: path, size: size, walSize: FileStatus(path + "-wal")?.size,
                open: { try HistoryStore.open(path, options: Self.options) },
                surroundings: { StoreSurroundings.onDisk(path) })
        }

        private mutating func lookInBackup(_ root: String) {
            let place: BackupPlace
            do {
                place = try BackupPlace(DeviceBackup(root: root))
            } catch {
                problems.append(PlaceProblem(name: root, problem: Self.withoutName("\(error)", root)))
                return
            }
            let location = BackupPlace.location(place.backup)
            for path in place.paths {
                tick()
                guard !PathText.isCompanion(PathText.last(path)), let head = place.head(path, count: 16),
                    PathText.isSQLite(head)
                else { continue }
                let reference = PackedReference(kind: .backup, place: root, inner: path)
                guard seen.insert(reference.name).inserted else { continue }
                glance(
                    name: reference.name, size: place.size(path) ?? 0, walSize: place.size(path + "-wal"),
                    open: {
                        try HistoryStore.open(
                            reference, located: PackedStoreFiles.locate(reference, backup: place.backup),
                            options: Self.options)
                    },
                    surroundings: { StoreSurroundings.lookUp(path, in: place, location: location) })
            }
        }

        private mutating func lookInArchive(_ zip: String) {
            let place: ArchivePlace
            do {
                place = ArchivePlace(try ZipStoreArchive(path: zip))
            } catch {
                problems.append(PlaceProblem(name: zip, problem: Self.withoutName("\(error)", zip)))
                return
            }
            for path in place.paths {
                tick()
                guard !PathText.isCompanion(PathText.last(path)), let size = place.size(path), size >= 512,
                    let head = place.head(path, count: 16), PathText.isSQLite(head)
                else { continue }
                // Unpacked whole to read its schema: its first pages need not hold it (Photos'
                // Z_METADATA is named past its first MiB), and an inflated stream cannot be read
                // out of order.
                let reference = PackedReference(kind: .archive, place: zip, inner: path)
                guard seen.insert(reference.name).inserted else { continue }
                glance(
                    name: reference.name, size: size, walSize: place.size(path + "-wal"),
                    open: {
                        try HistoryStore.open(
                            reference, located: PackedStoreFiles.locate(reference, archive: place.archive),
                            options: Self.options)
                    },
                    surroundings: { StoreSurroundings.lookUp(path, in: place, location: PathText.last(zip)) })
            }
        }

        /// Opens a candidate as every command would, and glances at its history.
        private mutating func glance(
            name: String, size: Int64, walSize: Int64?, open: () throws -> HistoryStore,
            surroundings: () -> (surroundings: StoreSurroundings, contents: [String: [UInt8]])
        ) {
            let glance: StoreGlance
            do {
                glance = try StoreGlance.read(open())
            } catch StoreError.notCoreData {
                return
            } catch StoreError.historyNotEnabled {
                problems.append(PlaceProblem(name: name, problem: "a Core Data store without persistent history"))
                return
            } catch {
                problems.append(PlaceProblem(name: name, problem: Self.withoutName("\(error)", name)))
                return
            }
            stores.append(
                FoundStore(
                    name: name, fileName: PathText.last(name), surroundings: surroundings().surroundings,
                    size: size, walSize: walSize, glance: glance,
                    health: StoreHealth.judge(glance, size: size, walSize: walSize)))
        }

        private mutating func tick() {
            examined += 1
            if examined % 256 == 0 { progress(examined) }
        }

        static let options = OpenOptions(busyTimeout: 0.5)

        /// An error's text without the file's name at its start (the listing names the file).
        static func withoutName(_ text: String, _ name: String) -> String {
            text.hasPrefix(name + ": ") ? String(text.dropFirst(name.count + 2)) : text
        }
    }
}
