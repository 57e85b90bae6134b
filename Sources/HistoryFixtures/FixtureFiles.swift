import Foundation
import HistoryKit

/// Writes a scenario's files into `<root>/<name>/`, replacing what was there.
public enum FixtureFiles {
    public static func write(_ scenario: Scenarios.Scenario, into root: String) throws {
        let fm = FileManager.default
        let dir = URL(fileURLWithPath: root).appendingPathComponent(scenario.name)
        if fm.fileExists(atPath: dir.path) { try fm.removeItem(at: dir) }
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        let store = dir.appendingPathComponent(scenario.storeFile)
        try fm.createDirectory(at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
        try StoreWriter.write(scenario.store, to: store.path)
        if let mirroring = scenario.mirroring { try MirroringWriter.write(mirroring, to: store.path) }
        for (path, bytes) in scenario.extraFiles {
            let url = dir.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        if scenario.writesXcdatamodel {
            let modelDir = store.deletingLastPathComponent().appendingPathComponent("Tasks.xcdatamodel")
            try fm.createDirectory(at: modelDir, withIntermediateDirectories: true)
            try Data(XcdatamodelWriter.contents(scenario.store.model).utf8).write(
                to: modelDir.appendingPathComponent("contents"))
        }
    }
}
