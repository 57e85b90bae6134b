import Foundation

/// Where the repository's fixtures and the shared real stores are: `CDHIST_ROOT`,
/// else the first folder above the executable (or the working directory) that
/// holds `fixtures/AppGroup/Tasks.sqlite`.
public enum FuzzRepository {
    public static let root: URL = {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["CDHIST_ROOT"], !env.isEmpty {
            return URL(fileURLWithPath: env).standardizedFileURL
        }
        let starts = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
            URL(fileURLWithPath: fm.currentDirectoryPath),
        ]
        for start in starts {
            var url = start.standardizedFileURL
            while url.path != "/" {
                if fm.fileExists(atPath: url.appendingPathComponent("fixtures/AppGroup/Tasks.sqlite").path) {
                    return url
                }
                url.deleteLastPathComponent()
            }
        }
        return URL(fileURLWithPath: fm.currentDirectoryPath)
    }()

    public static var fixtures: URL { root.appendingPathComponent("fixtures") }

    /// `../shared/real-stores` beside the repository (nil when absent). The
    /// files are only ever read.
    public static var realStores: URL? {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/real-stores")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
