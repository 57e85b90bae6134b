import Foundation
import HistoryReading

/// The store of an app on the booted simulator, found in one word (its bundle identifier): the
/// booted device (its `device.plist` says so) in the device sets under the user's home, the
/// app's data container there, the containers of its extensions, and the App Groups it names.
public enum BootedSimulator {
    /// CoreSimulator's `state` of a booted device.
    static let bootedState: Int64 = 3

    /// The device sets looked in: Xcode's, and the one XCTest clones devices into for parallel tests,
    /// under `home` (`HOME`, else the user's home folder).
    public static func deviceSets(home: String = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory())
        -> [String]
    {
        ["Library/Developer/CoreSimulator/Devices", "Library/Developer/XCTestDevices"].map { PathText.join(home, $0) }
    }

    /// The one history store of the app `bundleID` on the one booted device of `sets` that holds
    /// it; an error names what was found otherwise (no booted device, the app on none or on
    /// several, no store or several).
    public static func store(bundleID: String, in sets: [String] = deviceSets()) throws -> String {
        let booted = try containers(bundleID: bundleID, in: sets)
        let stores = StoreFinder.find(in: booted.containers, zipsInFolders: false).stores.map(\.name)
        guard stores.count == 1, let store = stores.first else {
            throw BootedError.stores(bundleID: bundleID, device: booted.device, found: stores)
        }
        return store
    }

    /// The one booted device of `sets` that holds the app `bundleID` (its name and runtime), and
    /// the containers where the app keeps data there; an error names the devices otherwise.
    public static func containers(bundleID: String, in sets: [String] = deviceSets()) throws -> (
        device: String, containers: [String]
    ) {
        let place = DiskPlace()
        let devices = sets.flatMap { place.folders(in: $0) }.compactMap {
            folder -> (name: String, booted: Bool, containers: [String])? in
            guard let plist = place.plist(folder + "/device.plist") else { return nil }
            return (
                SimulatorDevice(plist: plist, folder: folder).description, plist["state"]?.integerValue == bootedState,
                containers(of: bundleID, on: folder + "/data/Containers", in: place)
            )
        }
        let holding = devices.filter { !$0.containers.isEmpty }
        let booted = holding.filter(\.booted)
        let names = { (list: [(name: String, booted: Bool, containers: [String])]) in
            list.map { $0.name + ($0.booted ? ", booted" : ", shut down") }
        }
        guard booted.count == 1, let device = booted.first else {
            if booted.count > 1 { throw BootedError.severalDevices(bundleID: bundleID, devices: names(booted)) }
            throw BootedError.noBootedDevice(
                bundleID: bundleID, sets: sets, holding: names(holding),
                bootedWithout: devices.filter(\.booted).map(\.name))
        }
        return (device.name, device.containers)
    }

    /// The containers on a device (its `data/Containers` folder) where `bundleID` keeps data: its
    /// app container, its extensions' (identifiers below it), and the App Groups the app names.
    static func containers(of bundleID: String, on dir: String, in place: DiskPlace) -> [String] {
        let metadataName = ContainerIdentity.simulatorMetadata
        func identified(_ kind: String) -> [(folder: String, metadata: PlistValue)] {
            place.folders(in: dir + "/" + kind).compactMap { folder in
                place.plist(folder + "/" + metadataName).map { (folder, $0) }
            }
        }
        // The app's own container, and its extensions' (their identifiers extend the app's; another
        // app's, such as `com.example.tasks.dev`, is an app of its own).
        let app =
            identified("Data/Application").filter { $0.metadata["MCMMetadataIdentifier"]?.stringValue == bundleID }
            + identified("Data/PluginKitPlugin").filter {
                $0.metadata["MCMMetadataIdentifier"]?.stringValue?.hasPrefix(bundleID + ".") == true
            }
        guard !app.isEmpty else { return [] }
        let groups = Set(app.flatMap { ContainerIdentity.groups(in: $0.metadata) })
        let shared = identified("Shared/AppGroup").filter {
            $0.metadata["MCMMetadataIdentifier"]?.stringValue.map(groups.contains) == true
        }
        return (app + shared).map(\.folder)
    }
}

/// Why `--booted` found no single store.
public enum BootedError: MessageError, Equatable, Sendable {
    /// No booted device holds the app.
    case noBootedDevice(bundleID: String, sets: [String], holding: [String], bootedWithout: [String])
    /// Several booted devices hold it.
    case severalDevices(bundleID: String, devices: [String])
    /// The app's containers on the booted device hold no history store, or several.
    case stores(bundleID: String, device: String, found: [String])

    public var message: Message {
        switch self {
        case .noBootedDevice(let id, let sets, let holding, let others):
            let whereHeld =
                holding.isEmpty
                ? "no simulator device in \(sets.joined(separator: " or ")) holds it"
                : "the devices that hold it: \(holding.joined(separator: "; "))"
            let booted = others.isEmpty ? "no device is booted" : "booted without it: \(others.joined(separator: "; "))"
            return
                """
                \(id): no booted simulator holds this app (\(whereHeld); \(booted)): boot the device the app runs \
                on, or give the store's path
                """
        case .severalDevices(let id, let devices):
            return
                """
                \(id): \(devices.count) booted simulators hold this app (\(devices.joined(separator: "; "))): \
                shut down all but one, or give the store's path
                """
        case .stores(let id, let device, let found):
            if found.isEmpty {
                return
                    """
                    \(id): the app's containers on \(device) hold no Core Data store with history: has the app \
                    run and saved there?
                    """
            }
            return
                """
                \(id): the app's containers on \(device) hold \(found.count) history stores \
                (\(found.joined(separator: ", "))): give the store's path
                """
        }
    }
}
