import Foundation
import HistoryAnalysis
import HistoryReading

/// What an App Group container folder holds: stores, the shared defaults
/// plist, token files, and the group id.
public struct GroupContainer: Equatable, Sendable {
    public var root: String
    /// From `.com.apple.mobile_container_manager.metadata.plist` (iOS, simulator),
    /// or the folder name on macOS (`Group Containers/<group-id>`).
    public var groupID: String?
    /// SQLite files below the folder (those under `Library/Application Support` first).
    public var stores: [String]
    /// Plists under `Library/Preferences` (the group id's own first).
    public var defaultsPlists: [String]
    /// Files holding an archived history token.
    public var tokenFiles: [String]

    /// Looks through `path` without changing anything.
    public static func discover(_ path: String) throws -> GroupContainer {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDir) else { throw MergeStateError.fileNotFound(path: path) }
        guard isDir.boolValue else {
            throw MergeStateError.notAPlist(
                path: path, reason: "not a folder; \(Control.groupContainer) takes the App Group folder")
        }
        let root = URL(fileURLWithPath: path).standardizedFileURL
        var groupID: String?
        let metadata = root.appendingPathComponent(".com.apple.mobile_container_manager.metadata.plist").path
        if let data = FileContents.read(metadata), let plist = try? PropertyList.decode(data) {
            groupID = plist["MCMMetadataIdentifier"]?.stringValue
        }
        if groupID == nil, root.lastPathComponent.hasPrefix("group.") { groupID = root.lastPathComponent }

        var stores: [String] = []
        var plists: [String] = []
        var tokens: [String] = []
        let enumerator = fm.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            guard values?.isRegularFile == true else { continue }
            let name = url.lastPathComponent
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count))
            if PathText.isCompanion(name)
                || relative.split(separator: "/").contains(where: { PathText.isCdhistCopy(String($0)) })
            {
                continue
            }
            let size = values?.fileSize ?? 0
            if relative.contains("/Library/Preferences/") && name.hasSuffix(".plist") {
                plists.append(url.path)
            } else if PathText.isSQLite(DiskPlace().head(url.path, count: 16) ?? []) {
                stores.append(url.path)
            } else if size > 0 && size < 1 << 20, let data = FileContents.read(url.path) {
                // A plist holding several tokens keeps each actor's under its key, as shared defaults do.
                let held = HistoryTokenDecoder.tokenCount(fileBytes: [UInt8](data), source: url.path)
                if held > 1 { plists.append(url.path) } else if held == 1 { tokens.append(url.path) }
            }
        }
        stores.sort {
            ($0.contains("/Application Support/") ? 0 : 1, $0) < ($1.contains("/Application Support/") ? 0 : 1, $1)
        }
        plists.sort {
            (URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent == groupID ? 0 : 1, $0)
                < (URL(fileURLWithPath: $1).deletingPathExtension().lastPathComponent == groupID ? 0 : 1, $1)
        }
        return GroupContainer(
            root: root.path, groupID: groupID, stores: stores, defaultsPlists: plists, tokenFiles: tokens.sorted())
    }
}
