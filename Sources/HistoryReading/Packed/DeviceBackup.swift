import Foundation
import GRDB

/// A Finder or iTunes backup of an iOS device, read where it lies and never written.
///
/// `Manifest.db` lists every file as `Files(fileID, domain, relativePath, flags, file)`;
/// a file's content is stored as `<fileID[0:2]>/<fileID>`, where the fileID is the SHA-1 of
/// `domain-relativePath`. A store's `-wal` and `-shm` are files of their own under their own
/// hashed names. `Manifest.plist` says whether the backup is encrypted, `Info.plist` names
/// the device.
public struct DeviceBackup {
    /// One file of the backup.
    public struct Entry: Equatable, Sendable {
        public var domain: String
        public var relativePath: String
        public var fileID: String
    }

    /// The backup's folder.
    public let root: String
    /// The device's name and iOS version from `Info.plist`, when it has them.
    public let deviceName: String?
    public let productVersion: String?
    private let queue: DatabaseQueue

    /// Whether `folder` is a backup: it holds `Manifest.plist` or `Manifest.db`, and `Info.plist`
    /// or `Status.plist`.
    public static func isBackup(_ folder: String) -> Bool {
        let has = { FileManager.default.fileExists(atPath: PathText.join(folder, $0)) }
        return (has("Manifest.db") || has("Manifest.plist")) && (has("Info.plist") || has("Status.plist"))
    }

    /// Opens the backup at `root` (its `Manifest.db` read as an immutable file: no lock, no
    /// journal, nothing created beside it).
    public init(root: String) throws {
        self.root = root
        let manifestPlist = PathText.join(root, "Manifest.plist")
        if let data = FileContents.read(manifestPlist), let plist = try? PropertyList.decode(data),
            plist["IsEncrypted"]?.boolValue == true
        {
            throw PlaceError.encryptedBackup(path: root)
        }
        let info = FileContents.read(PathText.join(root, "Info.plist")).flatMap { try? PropertyList.decode($0) }
        deviceName = info?["Device Name"]?.stringValue ?? info?["Display Name"]?.stringValue
        productVersion = info?["Product Version"]?.stringValue
        let manifest = PathText.join(root, "Manifest.db")
        guard FileManager.default.fileExists(atPath: manifest) else {
            throw PlaceError.unreadableBackup(
                path: root,
                reason:
                    """
                    it has no Manifest.db (a backup made before iOS 10 keeps Manifest.mbdb, which cdhist does not \
                    read)
                    """
            )
        }
        var config = Configuration()
        config.readonly = true
        config.label = "cdhist-backup"
        do {
            queue = try DatabaseQueue(path: SQLiteURI.file(manifest, "immutable=1"), configuration: config)
            _ = try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'Files'") }
        } catch {
            throw PlaceError.unreadableBackup(path: root, reason: "Manifest.db cannot be read (\(Self.reason(error)))")
        }
    }

    /// Every regular file of the backup (`flags` 1), in the manifest's order.
    public func files() throws -> [Entry] {
        try fetch(
            "SELECT fileID, domain, relativePath FROM Files WHERE flags = 1 AND \(Self.textColumns)", arguments: [])
    }

    /// The regular file `relativePath` of `domain`, when the backup holds it.
    public func entry(domain: String, relativePath: String) throws -> Entry? {
        try fetch(
            """
            SELECT fileID, domain, relativePath FROM Files WHERE flags = 1 AND \(Self.textColumns) AND domain = ? \
            AND relativePath = ? LIMIT 1
            """,
            arguments: [domain, relativePath]
        ).first
    }

    /// Where the content of `entry` is stored.
    public func storedPath(_ entry: Entry) -> String {
        let prefix = String(entry.fileID.prefix(2))
        return PathText.join(PathText.join(root, prefix), entry.fileID)
    }

    /// The bundle or group identifier a domain names: `AppDomainGroup-group.x` → `group.x`,
    /// `AppDomain-com.x` → `com.x`, `AppDomainPlugin-com.x.ext` → `com.x.ext`; nil for the
    /// system's domains (`HomeDomain`, …).
    public static func identifier(ofDomain domain: String) -> String? {
        for prefix in [
            "AppDomainGroup-", "AppDomainPlugin-", "AppDomain-", "SysContainerDomain-", "SysSharedContainerDomain-",
        ]
        where domain.hasPrefix(prefix) {
            return String(domain.dropFirst(prefix.count))
        }
        return nil
    }

    /// Rows whose names are text (a damaged manifest may hold anything).
    private static let textColumns =
        "typeof(fileID) = 'text' AND typeof(domain) = 'text' AND typeof(relativePath) = 'text'"

    private func fetch(_ sql: String, arguments: StatementArguments) throws -> [Entry] {
        do {
            return try queue.read { db in
                try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row -> Entry? in
                    guard let id = String.fromDatabaseValue(row[0] as DatabaseValue),
                        let domain = String.fromDatabaseValue(row[1] as DatabaseValue),
                        let path = String.fromDatabaseValue(row[2] as DatabaseValue),
                        id.count >= 3, id.allSatisfy({ $0.isASCII && $0.isHexDigit })
                    else { return nil }
                    return Entry(domain: domain, relativePath: path, fileID: id.lowercased())
                }
            }
        } catch {
            throw PlaceError.unreadableBackup(path: root, reason: "Manifest.db cannot be read (\(Self.reason(error)))")
        }
    }

    private static func reason(_ error: Error) -> String {
        (error as? DatabaseError)?.message ?? "\(error)"
    }
}
