import Foundation
import HistoryAnalysis
import HistoryReading

/// What surrounds a store: the container holding it (its bundle or group identifier), the
/// device or backup it belongs to, and the files its merge state is kept in.
public struct StoreSurroundings: Equatable, Sendable {
    /// What kind of container holds the store.
    public enum ContainerKind: String, Sendable {
        case app
        case appGroup = "app-group"
        case appExtension = "extension"
    }

    /// The bundle or group identifier of the container, when one is known.
    public var identifier: String?
    public var containerKind: ContainerKind?
    /// Where the store is, for a person: a simulator's name and runtime, a backup's device,
    /// an `.xcappdata`, a Mac, or the folder.
    public var location: String
    /// The shared or standard defaults plists, and token files, its merge state may be kept in.
    public var defaultsPlists: [String]
    public var tokenFiles: [String]

    /// The surroundings of `name`, with the contents of its merge-state files (read where they
    /// lie: a backup's hashed files, an archive's entries inflated in memory).
    public static func withFiles(of name: String) throws -> (
        surroundings: StoreSurroundings, contents: [String: [UInt8]]
    ) {
        if let reference = PackedReference.resolve(name) {
            switch reference.kind {
            case .backup:
                let place = try BackupPlace(DeviceBackup(root: reference.place))
                return lookUp(reference.inner, in: place, location: BackupPlace.location(place.backup))
            case .archive:
                let place = ArchivePlace(try ZipStoreArchive(path: reference.place))
                return lookUp(reference.inner, in: place, location: PathText.last(reference.place))
            }
        }
        return onDisk(name)
    }

    /// The surroundings of the file `name` on disk, looked up from its absolute path and told
    /// relative to the current folder when `name` is relative (as the user wrote it).
    static func onDisk(_ name: String) -> (surroundings: StoreSurroundings, contents: [String: [UInt8]]) {
        var (found, contents) = lookUp(
            URL(fileURLWithPath: name).standardizedFileURL.path, in: DiskPlace(), location: nil)
        guard !name.hasPrefix("/") else { return (found, contents) }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path + "/"
        func relative(_ path: String) -> String { path.hasPrefix(here) ? String(path.dropFirst(here.count)) : path }
        found.location = relative(found.location)
        found.defaultsPlists = found.defaultsPlists.map(relative)
        found.tokenFiles = found.tokenFiles.map(relative)
        contents = Dictionary(contents.map { (relative($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        return (found, contents)
    }

    /// Looks around `path` in `place`; `location` names the place when it is a backup or an archive.
    static func lookUp(_ path: String, in place: PlaceFiles, location: String?) -> (
        surroundings: StoreSurroundings, contents: [String: [UInt8]]
    ) {
        let container = ContainerIdentity.find(path, in: place)
        var surroundings = StoreSurroundings(
            identifier: container?.identifier, containerKind: container?.kind,
            location: location ?? container?.location ?? PathText.parent(path),
            defaultsPlists: [], tokenFiles: [])
        var contents: [String: [UInt8]] = [:]
        guard let container else { return (surroundings, contents) }
        var plists: [String] = []
        var tokens: [String] = []
        let root = container.root.hasSuffix("/") ? container.root : container.root + "/"
        for file in place.files(under: container.root) where file.size > 0 && file.size < 1 << 20 {
            let fileName = PathText.last(file.path)
            let relative = file.path.hasPrefix(root) ? String(file.path.dropFirst(root.count)) : file.path
            // Caches and temporary files keep no merge state.
            guard !PathText.isCompanion(fileName), !relative.hasPrefix("Library/Caches/"), !relative.hasPrefix("tmp/"),
                !relative.split(separator: "/").contains(where: { PathText.isCdhistCopy(String($0)) })
            else { continue }
            let isPlist = relative.hasPrefix("Library/Preferences/") && fileName.hasSuffix(".plist")
            // A token is an archive or a plist holding one (bplist, XML) or SwiftData's JSON: the first bytes tell.
            guard isPlist || Self.mayHoldToken(place.head(file.path, count: 8) ?? []),
                let bytes = place.read(file.path, limit: 1 << 20)
            else { continue }
            // A plist holding several tokens keeps each actor's under its key, as shared defaults do.
            let held = isPlist ? 0 : HistoryTokenDecoder.tokenCount(fileBytes: bytes, source: file.path)
            if isPlist || held > 1 {
                plists.append(file.path)
                contents[place.name(file.path)] = bytes
            } else if held == 1 {
                tokens.append(file.path)
                contents[place.name(file.path)] = bytes
            }
        }
        // The group's own plist first, as `--group-container` orders them.
        let own = "\(container.identifier ?? "").plist"
        func order(_ path: String) -> (Int, String) { (PathText.last(path) == own ? 0 : 1, path) }
        plists.sort { order($0) < order($1) }
        // An app keeping its token in its standard defaults while the store is in its group (Hexagon).
        for app in container.appsUsingGroup {
            let plist = app.root + "/Library/Preferences/\(app.identifier).plist"
            if let bytes = place.read(plist, limit: 1 << 20) {
                plists.append(plist)
                contents[place.name(plist)] = bytes
            }
        }
        surroundings.defaultsPlists = plists.map(place.name)
        surroundings.tokenFiles = tokens.sorted().map(place.name)
        return (surroundings, contents)
    }
}

extension StoreSurroundings {
    /// Whether a file beginning with `head` may be a token file: a binary or XML plist, or JSON.
    package static func mayHoldToken<C: Collection>(_ head: C) -> Bool where C.Element == UInt8 {
        head.starts(with: Array("bplist".utf8)) || head.starts(with: Array("<?xml".utf8))
            || head.starts(with: Array("<plist".utf8))
            || head.first == UInt8(ascii: "{") || head.first == UInt8(ascii: "[")
    }
}

extension BackupPlace {
    /// "backup of NAME (iOS V)".
    static func location(_ backup: DeviceBackup) -> String {
        let device = backup.deviceName.map { "backup of \($0)" } ?? "backup \(PathText.last(backup.root))"
        return backup.productVersion.map { "\(device) (iOS \($0))" } ?? device
    }
}
