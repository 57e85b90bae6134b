import Foundation

/// What surrounds a store: the container holding it (its bundle or group identifier), the
/// device or backup it belongs to, and the files its merge state is kept in.
public struct StoreSurroundings: Equatable, Sendable {
    /// What kind of container holds the store.
    public enum ContainerKind: String, Sendable {
        case app, appGroup = "app-group", appExtension = "extension"
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

    /// The surroundings of the store `name` names (a path, or a name inside a backup or an archive).
    public static func of(_ name: String) throws -> StoreSurroundings {
        try files(of: name).surroundings
    }

    /// The surroundings of `name`, with the contents of its merge-state files (read where they
    /// lie: a backup's hashed files, an archive's entries inflated in memory).
    public static func files(of name: String) throws -> (surroundings: StoreSurroundings, contents: [String: [UInt8]]) {
        if let reference = PackedReference.resolve(name) {
            switch reference.kind {
            case .backup:
                let place = try BackupPlace(DeviceBackup(root: reference.place))
                return lookUp(reference.inner, in: place, location: BackupPlace.location(place.backup))
            case .archive:
                let place = ArchivePlace(try ZipStoreArchive(path: reference.place))
                return lookUp(reference.inner, in: place, location: (reference.place as NSString).lastPathComponent)
            }
        }
        let path = URL(fileURLWithPath: name).standardizedFileURL.path
        return lookUp(path, in: DiskPlace(), location: nil)
    }

    /// Looks around `path` in `place`; `location` names the place when it is a backup or an archive.
    static func lookUp(_ path: String, in place: PlaceFiles, location: String?) -> (surroundings: StoreSurroundings, contents: [String: [UInt8]]) {
        let container = ContainerIdentity.find(path, in: place)
        var surroundings = StoreSurroundings(identifier: container?.identifier, containerKind: container?.kind,
                                             location: location ?? container?.location ?? (path as NSString).deletingLastPathComponent,
                                             defaultsPlists: [], tokenFiles: [])
        var contents: [String: [UInt8]] = [:]
        guard let container else { return (surroundings, contents) }
        var plists: [String] = []
        var tokens: [String] = []
        for file in place.files(under: container.root) where file.size > 0 && file.size < 1 << 20 {
            let fileName = (file.path as NSString).lastPathComponent
            guard !fileName.hasSuffix("-wal"), !fileName.hasSuffix("-shm"), !fileName.hasSuffix("-journal"),
                  let bytes = place.read(file.path, limit: 1 << 20) else { continue }
            if file.path.contains("/Library/Preferences/") && fileName.hasSuffix(".plist") {
                plists.append(file.path)
                contents[place.name(file.path)] = bytes
            } else if !bytes.starts(with: Array("SQLite format 3".utf8)),
                      (try? HistoryTokenDecoder.decode(fileBytes: bytes, source: file.path)) != nil {
                tokens.append(file.path)
                contents[place.name(file.path)] = bytes
            }
        }
        // The group's own plist first, as `--group-container` orders them.
        plists.sort { ((($0 as NSString).lastPathComponent == "\(container.identifier ?? "").plist") ? 0 : 1, $0)
            < ((($1 as NSString).lastPathComponent == "\(container.identifier ?? "").plist") ? 0 : 1, $1) }
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

extension BackupPlace {
    /// "backup of NAME (iOS V)".
    static func location(_ backup: DeviceBackup) -> String {
        let device = backup.deviceName.map { "backup of \($0)" } ?? "backup \((backup.root as NSString).lastPathComponent)"
        return backup.productVersion.map { "\(device) (iOS \($0))" } ?? device
    }
}
