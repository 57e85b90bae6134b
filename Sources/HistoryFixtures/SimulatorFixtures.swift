import Foundation
import HistoryKit

/// Simulator devices under a home folder, as Xcode keeps them, for `--booted`: each device holds
/// the app `com.example.tasks` with its store in its App Group, and says in its `device.plist`
/// whether it is booted.
public enum SimulatorFixtures {
    public static let bundleID = PlaceFixtures.bundleID

    /// A device: its name, whether it is booted, and whether the app is installed on it.
    public struct Device: Sendable {
        public var name: String
        public var booted: Bool
        public var holdsApp: Bool

        public init(name: String, booted: Bool, holdsApp: Bool = true) {
            self.name = name
            self.booted = booted
            self.holdsApp = holdsApp
        }
    }

    /// Writes `devices` into `home`'s default device set; returns each device's store (nil for a
    /// device without the app), in order.
    @discardableResult
    public static func write(_ devices: [Device], home: String) throws -> [String?] {
        let set = home + "/Library/Developer/CoreSimulator/Devices"
        try PlaceFixtures.file(
            set + "/device_set.plist", PropertyList.encodeBinary(.dictionary(["DefaultDevices": .dictionary([:])])))
        return try devices.enumerated().map { i, d in
            let udid = String(format: "0D3C9A5E-1F2B-4C6D-8E7F-%012X", i + 1)
            let device = "\(set)/\(udid)"
            try PlaceFixtures.file(
                "\(device)/device.plist",
                PropertyList.encodeBinary(
                    .dictionary([
                        "name": .string(d.name), "runtime": .string("com.apple.CoreSimulator.SimRuntime.iOS-18-2"),
                        "UDID": .string(udid),
                        "state": .integer(d.booted ? 3 : 1),
                    ])))
            guard d.holdsApp else { return nil }
            let containers = "\(device)/data/Containers"
            try PlaceFixtures.file(
                "\(containers)/Data/Application/\(udid)/.com.apple.mobile_container_manager.metadata.plist",
                PropertyList.encodeBinary(
                    .dictionary([
                        "MCMMetadataIdentifier": .string(bundleID),
                        "MCMMetadataInfo": .dictionary([
                            "com.apple.MobileInstallation.GroupContainerIDs": .array([.string(PlaceFixtures.groupID)])
                        ]),
                    ])))
            let group = "\(containers)/Shared/AppGroup/\(udid)"
            try PlaceFixtures.groupFiles(group)
            let store = "\(group)/Library/Application Support/Tasks.sqlite"
            try PlaceFixtures.store(store, walPending: false)
            return store
        }
    }
}
