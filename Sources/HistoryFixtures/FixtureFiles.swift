import Foundation
import HistoryKit

/// Writes a scenario's files into `<root>/<name>/`, replacing what was there.
public enum FixtureFiles {
    public static func write(_ scenario: Scenarios.Scenario, into root: String) throws {
        let fm = FileManager.default
        let dir = URL(fileURLWithPath: root).appendingPathComponent(scenario.name)
        if fm.fileExists(atPath: dir.path) { try fm.removeItem(at: dir) }
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        try StoreWriter.write(scenario.store, to: dir.appendingPathComponent(scenario.storeFile).path)
        if scenario.writesXcdatamodel {
            let name = scenario.storeFile.replacingOccurrences(of: ".sqlite", with: "")
            let modelDir = dir.appendingPathComponent("\(name).xcdatamodel")
            try fm.createDirectory(at: modelDir, withIntermediateDirectories: true)
            try Data(XcdatamodelWriter.contents(scenario.store.model).utf8).write(to: modelDir.appendingPathComponent("contents"))
        }
    }
}
