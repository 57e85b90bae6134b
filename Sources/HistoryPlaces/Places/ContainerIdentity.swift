import Foundation
import HistoryReading

/// The container a file is in, found by walking up from it: a simulator's or a device's
/// container (`.com.apple.mobile_container_manager.metadata.plist`), a Mac container
/// (`.com.apple.containermanagerd.metadata.plist`, or the folder under `Group Containers`),
/// an Xcode download (`*.xcappdata`), or a backup's domain.
struct ContainerIdentity {
    /// An app container that names the group among its groups.
    struct App {
        var identifier: String
        var root: String
    }

    var identifier: String?
    var kind: StoreSurroundings.ContainerKind
    /// The container's folder in the place: its merge state is below it.
    var root: String
    /// A simulator's name and runtime, an `.xcappdata`'s name, "Mac".
    var location: String?
    /// For an App Group: the app containers beside it that name it.
    var appsUsingGroup: [App]

    static let simulatorMetadata = ".com.apple.mobile_container_manager.metadata.plist"
    static let macMetadata = ".com.apple.containermanagerd.metadata.plist"

    static func find(_ path: String, in place: PlaceFiles) -> ContainerIdentity? {
        if let backup = place as? BackupPlace { return inBackup(path, backup) }
        var folders: [String] = []
        var dir = PathText.parent(path)
        while !dir.isEmpty && dir != "/" && dir != "." {
            folders.append(dir)
            dir = PathText.parent(dir)
        }
        for dir in folders {
            if let found = container(at: dir, parent: PathText.parent(dir), in: place) { return found }
        }
        // Nothing names a container: a group container copied off a device, perhaps.
        for dir in folders {
            if let found = copiedGroup(at: dir, in: place) { return found }
        }
        return nil
    }

    /// The container whose folder is `dir`, if it is one.
    private static func container(at dir: String, parent: String, in place: PlaceFiles) -> ContainerIdentity? {
        let name = PathText.last(dir)
        if name.hasSuffix(".xcappdata") {
            let info = place.plist(dir + "/AppDataInfo.plist")
            let id =
                ["AppIdentifier", "BundleIdentifier", "CFBundleIdentifier"].lazy.compactMap { info?[$0]?.stringValue }
                .first
                ?? name.split(separator: " ").first.map(String.init)
            return ContainerIdentity(
                identifier: id, kind: .app, root: dir + "/AppData", location: name, appsUsingGroup: [])
        }
        for metadataName in [simulatorMetadata, macMetadata] {
            guard let metadata = place.plist(dir + "/" + metadataName) else { continue }
            let id = metadata["MCMMetadataIdentifier"]?.stringValue
            let kind: StoreSurroundings.ContainerKind =
                dir.contains("/Shared/AppGroup/") || PathText.last(parent) == "Group Containers"
                ? .appGroup : dir.contains("/PluginKitPlugin/") ? .appExtension : .app
            let mac = metadataName == macMetadata
            let root = mac && kind != .appGroup && place.isDirectory(dir + "/Data") ? dir + "/Data" : dir
            var found = ContainerIdentity(
                identifier: id, kind: kind, root: root,
                location: deviceLocation(above: dir, in: place) ?? (mac ? "Mac" : nil),
                appsUsingGroup: [])
            if kind == .appGroup, let id { found.appsUsingGroup = apps(using: id, folder: dir, mac: mac, in: place) }
            return found
        }
        if PathText.last(parent) == "Group Containers" {
            return ContainerIdentity(identifier: name, kind: .appGroup, root: dir, location: "Mac", appsUsingGroup: [])
        }
        return nil
    }

    /// A group container copied off a device (`devicectl device copy from --domain-type
    /// appGroupDataContainer`) keeps no metadata plist: its one `group.*.plist` names the group.
    /// A home folder (it has `Library/Containers`) is none, whatever its preferences hold.
    private static func copiedGroup(at dir: String, in place: PlaceFiles) -> ContainerIdentity? {
        guard place is DiskPlace, dir != NSHomeDirectory(),
            !["Library/Containers", "Library/Group Containers", "Library/Application Support/MobileSync"].contains(
                where: {
                    FileStatus(dir + "/" + $0)?.kind == .directory
                })
        else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/Library/Preferences")) ?? []
        let groups = names.filter { $0.hasPrefix("group.") && $0.hasSuffix(".plist") }
        guard groups.count == 1, let plist = groups.first else { return nil }
        return ContainerIdentity(
            identifier: String(plist.dropLast(6)), kind: .appGroup, root: dir, location: nil, appsUsingGroup: [])
    }

    /// The app (and extension) containers beside a group's that name it among their groups.
    private static func apps(using group: String, folder dir: String, mac: Bool, in place: PlaceFiles) -> [App] {
        // Simulator: Containers/Shared/AppGroup/<UUID> beside Containers/Data/{Application,PluginKitPlugin}/<UUID>.
        // Mac: Library/Group Containers/<id> beside Library/Containers/<bundle>.
        func up(_ path: String, _ levels: Int) -> String {
            (0..<levels).reduce(path) { p, _ in PathText.parent(p) }
        }
        let folders =
            mac
            ? place.folders(in: up(dir, 2) + "/Containers")
            : ["Application", "PluginKitPlugin"].flatMap { place.folders(in: up(dir, 3) + "/Data/" + $0) }
        return folders.compactMap { folder in
            let metadata = place.plist(folder + "/" + (mac ? macMetadata : simulatorMetadata))
            guard let id = metadata?["MCMMetadataIdentifier"]?.stringValue, let metadata,
                groups(in: metadata).contains(group)
            else { return nil }
            return App(identifier: id, root: mac ? folder + "/Data" : folder)
        }
    }

    /// The group identifiers a container's metadata names.
    static func groups(in metadata: PlistValue) -> [String] {
        let key = "com.apple.MobileInstallation.GroupContainerIDs"
        let value = metadata[key] ?? metadata["MCMMetadataInfo"]?[key]
        return value?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// "NAME (iOS 18.2)" from the `device.plist` of the simulator device above `dir`.
    private static func deviceLocation(above dir: String, in place: PlaceFiles) -> String? {
        var current = dir
        while !current.isEmpty && current != "/" {
            if let device = place.plist(current + "/device.plist") {
                return SimulatorDevice(plist: device, folder: current).description
            }
            current = PathText.parent(current)
        }
        return nil
    }

    /// In a backup, a domain is a container: `AppDomainGroup-G` is the group G, and the apps
    /// whose bundle identifier G extends (`group.com.x.app` and `com.x.app`) use it.
    private static func inBackup(_ path: String, _ place: BackupPlace) -> ContainerIdentity? {
        guard let domain = path.split(separator: "/").first.map(String.init),
            let id = DeviceBackup.identifier(ofDomain: domain)
        else { return nil }
        guard domain.hasPrefix("AppDomainGroup-") else {
            return ContainerIdentity(
                identifier: id, kind: domain.hasPrefix("AppDomainPlugin-") ? .appExtension : .app,
                root: domain, location: nil, appsUsingGroup: [])
        }
        let bare = id.hasPrefix("group.") ? String(id.dropFirst(6)) : id
        let apps = place.folders(in: "").compactMap { other -> App? in
            guard other.hasPrefix("AppDomain-"), let bundle = DeviceBackup.identifier(ofDomain: other),
                bare == bundle || bare.hasPrefix(bundle + ".") || bundle.hasPrefix(bare + ".")
            else { return nil }
            return App(identifier: bundle, root: other)
        }
        return ContainerIdentity(identifier: id, kind: .appGroup, root: domain, location: nil, appsUsingGroup: apps)
    }
}

extension PlaceFiles {
    /// Whether anything is stored below `dir`.
    func isDirectory(_ dir: String) -> Bool {
        if self is DiskPlace { return FileStatus(dir)?.kind == .directory }
        return !files(under: dir).isEmpty
    }
}
