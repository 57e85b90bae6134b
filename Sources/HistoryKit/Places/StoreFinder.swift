import Foundation

/// Finds Core Data stores with history under places: folders (searched recursively; a
/// simulator device set, one device, an `.xcappdata` and a Mac container are folders), iOS
/// backups and zip archives. Only file headers, schemas and indexes are read.
public enum StoreFinder {
    /// The places looked in when none is given: on macOS the simulators' device sets (Xcode's
    /// and its Previews'), and the Mac's app and group containers; elsewhere the current folder.
    public static func defaultPlaces(home: String = NSHomeDirectory()) -> [String] {
        #if os(macOS)
        return ["Library/Developer/CoreSimulator/Devices", "Library/Developer/Xcode/UserData/Previews/Simulator Devices",
                "Library/Containers", "Library/Group Containers"]
            .map { (home as NSString).appendingPathComponent($0) }
            .filter { FileStatus($0)?.kind == .directory }
        #else
        return ["."]
        #endif
    }

    /// Every history store under `places`; `progress` is told how many files were examined.
    public static func find(in places: [String], progress: (Int) -> Void = { _ in }) -> StoreListing {
        withoutActuallyEscaping(progress) { progress in
            var search = Search(progress: progress)
            for place in places { search.look(in: place) }
            let stores = search.stores.sorted { ($0.newest ?? -.infinity, $1.name) > ($1.newest ?? -.infinity, $0.name) }
            return StoreListing(stores: stores, problems: search.problems, filesExamined: search.examined)
        }
    }

    private struct Search {
        var progress: (Int) -> Void
        var stores: [FoundStore] = []
        var problems: [PlaceProblem] = []
        var examined = 0
        private var seen = Set<String>()

        init(progress: @escaping (Int) -> Void) { self.progress = progress }

        mutating func look(in place: String) {
            guard let status = FileStatus(place) else {
                problems.append(PlaceProblem(name: place, problem: FileAccess.whyUnreadable(place) ?? "no such file or folder"))
                return
            }
            if status.kind == .regular {
                if ZipStoreArchive.isArchive(place) { lookInArchive(place) } else { consider(place) }
            } else if status.kind == .directory {
                if DeviceBackup.isBackup(place) { lookInBackup(place) } else { walk(place) }
            } else {
                problems.append(PlaceProblem(name: place, problem: "not a folder, a file or an archive but \(status.kind.description)"))
            }
        }

        private mutating func walk(_ root: String) {
            let base = root == "." ? "" : root
            guard let enumerator = FileManager.default.enumerator(atPath: root) else {
                problems.append(PlaceProblem(name: root, problem: FileAccess.whyUnreadable(root) ?? "cannot be listed"))
                return
            }
            while let relative = enumerator.nextObject() as? String {
                let path = base.isEmpty ? relative : (base as NSString).appendingPathComponent(relative)
                let name = (relative as NSString).lastPathComponent
                guard let status = FileStatus(path) else { continue }
                if status.kind == .directory {
                    // An app's bundle (and a simulator's Bundle containers) holds what the app
                    // shipped, not what it wrote.
                    if name.hasSuffix(".app") || (name == "Bundle" && (relative as NSString).deletingLastPathComponent.hasSuffix("Containers")) {
                        enumerator.skipDescendants()
                    } else if DeviceBackup.isBackup(path) {
                        enumerator.skipDescendants()
                        lookInBackup(path)
                    }
                    continue
                }
                if status.kind == .regular { consider(path, size: status.size) }
            }
        }

        /// A file on disk: a store when its header says SQLite and it has history tables.
        private mutating func consider(_ path: String, size: Int64? = nil) {
            tick()
            let name = (path as NSString).lastPathComponent
            guard !Self.isCompanion(name) else { return }
            let size = size ?? FileStatus(path)?.size ?? 0
            guard let head = DiskPlace().prefix(path, count: 16) else { return }
            guard Self.isSQLite(head) else {
                if size > 0, Self.looksLikeStore(name) { problems.append(PlaceProblem(name: path, problem: "named like a store, but not an SQLite file")) }
                return
            }
            open(name: path, place: DiskPlace(), path: URL(fileURLWithPath: path).standardizedFileURL.path, location: nil,
                 size: size, walSize: FileStatus(path + "-wal")?.size)
        }

        private mutating func lookInBackup(_ root: String) {
            let place: BackupPlace
            do {
                place = try BackupPlace(DeviceBackup(root: root))
            } catch {
                problems.append(PlaceProblem(name: root, problem: "\(error)".replacingOccurrences(of: "\(root): ", with: "")))
                return
            }
            let location = BackupPlace.location(place.backup)
            for path in place.paths {
                tick()
                let fileName = (path as NSString).lastPathComponent
                guard !Self.isCompanion(fileName), let entry = place.entry(path) else { continue }
                let stored = place.backup.storedPath(entry)
                guard let head = DiskPlace().prefix(stored, count: 16), Self.isSQLite(head) else { continue }
                open(name: place.name(path), place: place, path: path, location: location,
                     size: FileStatus(stored)?.size ?? 0, walSize: place.size(path + "-wal"))
            }
        }

        private mutating func lookInArchive(_ zip: String) {
            let place: ArchivePlace
            do {
                place = ArchivePlace(try ZipStoreArchive(path: zip))
            } catch {
                problems.append(PlaceProblem(name: zip, problem: "\(error)".replacingOccurrences(of: "\(zip): ", with: "")))
                return
            }
            for path in place.paths {
                tick()
                let fileName = (path as NSString).lastPathComponent
                guard !Self.isCompanion(fileName), let size = place.size(path), size >= 512,
                      let head = try? place.archive.prefix(path, count: 16), Self.isSQLite(head) else { continue }
                open(name: place.name(path), place: place, path: path, location: (zip as NSString).lastPathComponent,
                     size: size, walSize: place.size(path + "-wal"))
            }
        }

        /// Opens a candidate as every command would, and glances at its history.
        private mutating func open(name: String, place: PlaceFiles, path: String, location: String?, size: Int64, walSize: Int64?) {
            let key = place is DiskPlace ? path : name
            guard seen.insert(key).inserted else { return }
            let glance: StoreGlance
            do {
                let store = try HistoryStore.open(name, options: OpenOptions(busyTimeout: 0.5))
                glance = try store.glance()
            } catch StoreError.notCoreData {
                return
            } catch StoreError.historyNotEnabled {
                problems.append(PlaceProblem(name: name, problem: "a Core Data store without persistent history"))
                return
            } catch {
                problems.append(PlaceProblem(name: name, problem: Self.withoutName("\(error)", name)))
                return
            }
            let surroundings = StoreSurroundings.lookUp(path, in: place, location: location).surroundings
            stores.append(FoundStore(name: name, fileName: (name as NSString).lastPathComponent, surroundings: surroundings,
                                     size: size, walSize: walSize, glance: glance,
                                     health: StoreHealth.judge(glance, size: size, walSize: walSize)))
        }

        private mutating func tick() {
            examined += 1
            if examined % 256 == 0 { progress(examined) }
        }

        static func isCompanion(_ name: String) -> Bool {
            name.hasSuffix("-wal") || name.hasSuffix("-shm") || name.hasSuffix("-journal")
        }

        static func isSQLite(_ head: [UInt8]) -> Bool { head == Array("SQLite format 3\0".utf8) }

        static func looksLikeStore(_ name: String) -> Bool {
            let ext = (name as NSString).pathExtension.lowercased()
            return ["sqlite", "store", "sqlite3"].contains(ext)
        }

        /// An error's text without the file's name at its start (the listing names the file).
        static func withoutName(_ text: String, _ name: String) -> String {
            text.hasPrefix(name + ": ") ? String(text.dropFirst(name.count + 2)) : text
        }
    }
}

extension DiskPlace {
    /// The first `count` bytes of the regular file `path`.
    func prefix(_ path: String, count: Int) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
    }
}
