import Foundation
import HistoryReading

/// A CoreSimulator device, from its `device.plist`: its name and runtime.
struct SimulatorDevice {
    var name: String?
    /// `com.apple.CoreSimulator.SimRuntime.iOS-18-2` as "iOS 18.2".
    var runtime: String?
    var folder: String

    init(plist: PlistValue, folder: String) {
        self.folder = folder
        name = plist["name"]?.stringValue
        runtime = plist["runtime"]?.stringValue.map(Self.readableRuntime)
    }

    var description: String {
        let base = name ?? "simulator \(PathText.last(folder))"
        return runtime.map { "\(base) (\($0))" } ?? base
    }

    static func readableRuntime(_ identifier: String) -> String {
        let last = identifier.split(separator: ".").last.map(String.init) ?? identifier
        let parts = last.split(separator: "-")
        guard parts.count >= 2 else { return last }
        return "\(parts[0]) \(parts.dropFirst().joined(separator: "."))"
    }
}
