import Foundation
import GRDB
import HistoryKit
import ZIPFoundation

/// Stores where users keep them, for `stores`: a simulator device set with an app and its App
/// Group, a Mac group container, an Xcode `.xcappdata` download, a group container copied with
/// `devicectl`, an iOS backup (the store's
/// `-wal` stored apart under its own hashed name), an encrypted backup and a zip of a file
/// system, each with decoys that are not history stores: a plain SQLite file, a Core Data store
/// without history, a truncated store, and a store inside an app's Bundle container.
public enum PlaceFixtures {
    /// A history store a layout holds: the name `stores` must give it, its identifier, and its
    /// transactions (WAL included).
    public struct Planted: Equatable, Sendable {
        public var name: String
        public var identifier: String
        public var transactionCount: Int
    }

    public static let layouts = ["simulator", "mac", "xcappdata", "devicectl", "backup", "archive"]
    static let groupID = "group.com.example.tasks"
    static let bundleID = "com.example.tasks"
    static let deviceUDID = "0D3C9A5E-1F2B-4C6D-8E7F-9A0B1C2D3E4F"
    static let appUUID = "A1B2C3D4-0000-4000-8000-00000000000A"
    static let groupUUID = "A1B2C3D4-0000-4000-8000-00000000000B"
    static let bundleUUID = "A1B2C3D4-0000-4000-8000-00000000000C"

    /// Writes `layout` into `root/<layout>` (the backup into `root/backup/<UDID>`, the archive as
    /// `root/archive/extraction.zip`) and returns the place to point `stores` at and what it holds.
    public static func write(_ layout: String, into root: String) throws -> (place: String, planted: [Planted]) {
        let dir = (root as NSString).appendingPathComponent(layout)
        let fm = FileManager.default
        if fm.fileExists(atPath: dir) { try fm.removeItem(atPath: dir) }
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        switch layout {
        case "simulator": return try simulator(dir)
        case "mac": return try mac(dir)
        case "xcappdata": return try xcappdata(dir)
        case "devicectl": return try devicectl(dir)
        case "backup": return try backup(dir)
        case "archive": return try archive(dir)
        default: throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: layout])
        }
    }

    // MARK: layouts

    private static func simulator(_ dir: String) throws -> (String, [Planted]) {
        let device = "\(dir)/Devices/\(deviceUDID)"
        try file(
            "\(dir)/Devices/device_set.plist",
            PropertyList.encodeBinary(.dictionary(["DefaultDevices": .dictionary([:])])))
        try file(
            "\(device)/device.plist",
            PropertyList.encodeBinary(
                .dictionary([
                    "name": .string("iPhone 16"), "runtime": .string("com.apple.CoreSimulator.SimRuntime.iOS-18-2"),
                    "UDID": .string(deviceUDID),
                ])))
        let containers = "\(device)/data/Containers"
        let app = "\(containers)/Data/Application/\(appUUID)"
        try file(
            "\(app)/.com.apple.mobile_container_manager.metadata.plist",
            PropertyList.encodeBinary(
                .dictionary([
                    "MCMMetadataIdentifier": .string(bundleID), "MCMMetadataContentClass": .integer(2),
                    "MCMMetadataInfo": .dictionary([
                        "com.apple.MobileInstallation.GroupContainerIDs": .array([.string(groupID)])
                    ]),
                ])))
        // The app keeps its own merge position in its standard defaults (as Hexagon does).
        try file(
            "\(app)/Library/Preferences/\(bundleID).plist",
            MergeStateFixtures.plist([
                "PersistentHistoryTrackingKit.lastToken.shareExtension": MergeStateFixtures.date(30)
            ]))
        let local = "\(app)/Library/Application Support/Local.sqlite"
        try store(local, walPending: false)
        let group = "\(containers)/Shared/AppGroup/\(groupUUID)"
        try groupFiles(group)
        let shared = "\(group)/Library/Application Support/Tasks.sqlite"
        try store(shared, walPending: true)
        // Decoys: a seed store in the app's bundle, a cache, a store without history, a cut copy.
        try store("\(containers)/Bundle/Application/\(bundleUUID)/Tasks.app/Seed.sqlite", walPending: false)
        try decoys("\(app)/Library/Caches")
        return (
            dir + "/Devices",
            [
                Planted(name: shared, identifier: groupID, transactionCount: 34),
                Planted(name: local, identifier: bundleID, transactionCount: 34),
            ]
        )
    }

    private static func mac(_ dir: String) throws -> (String, [Planted]) {
        let groupFolder = "\(dir)/Library/Group Containers/ABCDE12345.\(groupID)"
        try file(
            "\(groupFolder)/.com.apple.containermanagerd.metadata.plist",
            PropertyList.encodeBinary(
                .dictionary([
                    "MCMMetadataIdentifier": .string("ABCDE12345.\(groupID)")
                ])))
        try file(
            "\(groupFolder)/Library/Preferences/ABCDE12345.\(groupID).plist",
            MergeStateFixtures.plist([
                "PersistentHistoryTrackingKit.lastToken.app": MergeStateFixtures.date(34)
            ]))
        let shared = "\(groupFolder)/Library/Application Support/Tasks.sqlite"
        try store(shared, walPending: true)
        try decoys("\(dir)/Library/Containers/\(bundleID)/Data/Library/Caches")
        return (dir + "/Library", [Planted(name: shared, identifier: "ABCDE12345.\(groupID)", transactionCount: 34)])
    }

    private static func xcappdata(_ dir: String) throws -> (String, [Planted]) {
        let download = "\(dir)/\(bundleID) 2026-11-24 10.15.02.318.xcappdata"
        try file(
            "\(download)/AppDataInfo.plist",
            PropertyList.encodeBinary(.dictionary(["AppIdentifier": .string(bundleID)])))
        let local = "\(download)/AppData/Library/Application Support/Local.sqlite"
        try store(local, walPending: true)
        try decoys("\(download)/AppData/Library/Caches")
        return (dir, [Planted(name: local, identifier: bundleID, transactionCount: 34)])
    }

    /// A group container as `xcrun devicectl device copy from --domain-type appGroupDataContainer`
    /// copies it: no metadata plist, the shared defaults name the group.
    private static func devicectl(_ dir: String) throws -> (String, [Planted]) {
        let copied = "\(dir)/Shared Group Copy"
        try file(
            "\(copied)/Library/Preferences/\(groupID).plist",
            MergeStateFixtures.plist([
                "PersistentHistoryTrackingKit.lastToken.app": MergeStateFixtures.date(34)
            ]))
        let shared = "\(copied)/Library/Application Support/Tasks.sqlite"
        try store(shared, walPending: true)
        try decoys("\(copied)/Library/Caches")
        return (dir, [Planted(name: shared, identifier: groupID, transactionCount: 34)])
    }

    private static func backup(_ dir: String) throws -> (String, [Planted]) {
        let staging = "\(dir)/staging"
        let groupDomain = "AppDomainGroup-\(groupID)"
        let appDomain = "AppDomain-\(bundleID)"
        let storePath = "Library/Application Support/Tasks.sqlite"
        try store("\(staging)/store.sqlite", walPending: true)
        try decoys("\(staging)/decoys")
        try file(
            "\(staging)/group.plist",
            MergeStateFixtures.plist(["PersistentHistoryTrackingKit.lastToken.app": MergeStateFixtures.date(34)]))
        try file(
            "\(staging)/app.plist",
            MergeStateFixtures.plist(["PersistentHistoryTrackingKit.lastToken.widget": MergeStateFixtures.date(20)]))
        let root = try backup(
            holding: [
                (groupDomain, storePath, "\(staging)/store.sqlite"),
                (appDomain, "Library/Caches/cache.db", "\(staging)/decoys/cache.db"),
                (appDomain, "Library/Caches/NoHistory.sqlite", "\(staging)/decoys/NoHistory.sqlite"),
                (appDomain, "Library/Caches/Broken.sqlite", "\(staging)/decoys/Broken.sqlite"),
                (groupDomain, "Library/Preferences/\(groupID).plist", "\(staging)/group.plist"),
                (appDomain, "Library/Preferences/\(bundleID).plist", "\(staging)/app.plist"),
            ], into: dir)
        try FileManager.default.removeItem(atPath: staging)
        // An encrypted backup beside it: a problem, not a store.
        let locked = "\(dir)/0000000000000000000000000000000000000000"
        try file("\(locked)/Manifest.plist", PropertyList.encodeBinary(.dictionary(["IsEncrypted": .bool(true)])))
        try file(
            "\(locked)/Info.plist", PropertyList.encodeBinary(.dictionary(["Device Name": .string("Locked iPhone")])))
        try file("\(locked)/Manifest.db", Array(repeating: 0xA5, count: 4096))
        return (dir, [Planted(name: "\(root)/\(groupDomain)/\(storePath)", identifier: groupID, transactionCount: 34)])
    }

    /// An iOS backup in `dir/<UDID>` of a device named "Test iPhone" holding `files` (each a
    /// domain, a relative path and the file to copy; a store's `-wal` and `-shm` beside the source
    /// are stored too, each under its own hashed name). Returns the backup's folder.
    public static func backup(holding files: [(domain: String, path: String, source: String)], into dir: String) throws
        -> String
    {
        let root = "\(dir)/\(deviceUDID)"
        let fm = FileManager.default
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        let manifest = try DatabaseQueue(path: "\(root)/Manifest.db")
        try manifest.write { db in
            try db.execute(
                sql:
                    """
                    CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, \
                    file BLOB)
                    """
            )
            var folders = Set<String>()
            for (domain, path, source) in files {
                for suffix in ["", "-wal", "-shm"] where fm.fileExists(atPath: source + suffix) {
                    let id = SHA1.hex(Array("\(domain)-\(path)\(suffix)".utf8))
                    try fm.createDirectory(atPath: "\(root)/\(id.prefix(2))", withIntermediateDirectories: true)
                    try fm.copyItem(atPath: source + suffix, toPath: "\(root)/\(id.prefix(2))/\(id)")
                    try db.execute(
                        sql: "INSERT INTO Files VALUES (?, ?, ?, 1, NULL)", arguments: [id, domain, path + suffix])
                }
                var folder = (path as NSString).deletingLastPathComponent
                while !folder.isEmpty, folders.insert(domain + "-" + folder).inserted {
                    try db.execute(
                        sql: "INSERT INTO Files VALUES (?, ?, ?, 2, NULL)",
                        arguments: [SHA1.hex(Array("\(domain)-\(folder)".utf8)), domain, folder])
                    folder = (folder as NSString).deletingLastPathComponent
                }
            }
        }
        try manifest.close()
        try file(
            "\(root)/Manifest.plist",
            PropertyList.encodeBinary(.dictionary(["IsEncrypted": .bool(false), "Version": .string("10.0")])))
        try file(
            "\(root)/Info.plist",
            PropertyList.encodeBinary(
                .dictionary(["Device Name": .string("Test iPhone"), "Product Version": .string("18.2")])))
        try file("\(root)/Status.plist", PropertyList.encodeBinary(.dictionary(["IsFullBackup": .bool(false)])))
        return root
    }

    private static func archive(_ dir: String) throws -> (String, [Planted]) {
        let tree = "\(dir)/tree"
        let containerPath = "private/var/mobile/Containers/Shared/AppGroup/\(groupUUID)"
        try groupFiles("\(tree)/\(containerPath)")
        try store("\(tree)/\(containerPath)/Library/Application Support/Tasks.sqlite", walPending: true)
        try decoys("\(tree)/private/var/mobile/Library/Caches")
        let zip = "\(dir)/extraction.zip"
        try archive(tree, to: zip)
        try FileManager.default.removeItem(atPath: tree)
        return (
            zip,
            [
                Planted(
                    name: "\(zip)/\(containerPath)/Library/Application Support/Tasks.sqlite", identifier: groupID,
                    transactionCount: 34)
            ]
        )
    }

    /// Zips every file below `tree` (deflated, paths relative to it) into `zip`.
    public static func archive(_ tree: String, to zip: String) throws {
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .create)
        let enumerator = FileManager.default.enumerator(atPath: tree)
        var paths: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(tree)/\(relative)", isDirectory: &isDir), !isDir.boolValue {
                paths.append(relative)
            }
        }
        for relative in paths.sorted() {
            try archive.addEntry(with: relative, relativeTo: URL(fileURLWithPath: tree), compressionMethod: .deflate)
        }
    }

    // MARK: pieces

    /// An App Group container's metadata and shared defaults.
    static func groupFiles(_ group: String) throws {
        try file(
            "\(group)/.com.apple.mobile_container_manager.metadata.plist",
            PropertyList.encodeBinary(
                .dictionary([
                    "MCMMetadataIdentifier": .string(groupID), "MCMMetadataContentClass": .integer(7),
                    "MCMMetadataUUID": .string(groupUUID),
                ])))
        try file(
            "\(group)/Library/Preferences/\(groupID).plist",
            MergeStateFixtures.plist([
                "PersistentHistoryTrackingKit.lastToken.app": MergeStateFixtures.date(34),
                "PersistentHistoryTrackingKit.lastToken.widget": MergeStateFixtures.date(20),
            ]))
    }

    /// The App Group history (34 transactions), the newest 8 left in its `-wal` when `walPending`.
    static func store(_ path: String, walPending: Bool) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, tombstoneColumnCount: 4,
                journalMode: .wal(keepInWAL: walPending ? 8 : 0), transactions: Scenarios.appGroupHistory()), to: path)
    }

    /// A plain SQLite file, a Core Data store without history, and a truncated store.
    private static func decoys(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let plain = try DatabaseQueue(path: "\(dir)/cache.db")
        try plain.write { try $0.execute(sql: "CREATE TABLE cache (key TEXT PRIMARY KEY, value BLOB)") }
        try plain.close()
        let noHistory = try DatabaseQueue(path: "\(dir)/NoHistory.sqlite")
        try noHistory.write { db in
            try db.execute(
                sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try db.execute(
                sql:
                    """
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX \
                    INTEGER)
                    """
            )
            try db.execute(
                sql: "CREATE TABLE ZTASK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR)")
        }
        try noHistory.close()
        try store("\(dir)/Broken.sqlite", walPending: false)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: "\(dir)/Broken.sqlite"))
        try handle.truncate(atOffset: 4096 + 100)
        try handle.close()
    }

    static func file(_ path: String, _ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// SHA-1 (FIPS 180-4), for a backup's file names: `SHA1(domain-relativePath)`.
enum SHA1 {
    static func hex(_ message: [UInt8]) -> String {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var bytes = message + [0x80]
        while bytes.count % 64 != 56 { bytes.append(0) }
        let bits = UInt64(message.count) * 8
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[chunk + i * 4 + $1]) } }
            for i in 16..<80 { w.append((w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotatedLeft(1)) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    i < 20
                    ? ((b & c) | (~b & d), 0x5A82_7999)
                    : i < 40
                        ? (b ^ c ^ d, 0x6ED9_EBA1)
                        : i < 60 ? ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC) : (b ^ c ^ d, 0xCA62_C1D6)
                let t = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, t)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
        }
        return h.map { String(format: "%08x", $0) }.joined()
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ n: UInt32) -> UInt32 { self << n | self >> (32 - n) }
}
