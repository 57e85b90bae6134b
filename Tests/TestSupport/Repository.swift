import Foundation

/// Files of the repository the tests read.
public enum Repository {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The committed fixtures.
    public static let fixtures = root.appendingPathComponent("fixtures").path
}

/// Paths to `../shared/real-stores`, when the repository sits beside `shared/`;
/// tests against them are skipped, with a printed notice, when it does not.
public enum RealStores {
    public static let directory: String? = {
        let dir = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/real-stores").path
        if FileManager.default.fileExists(atPath: dir) { return dir }
        print("NOTICE: \(dir) not found; tests against real Core Data stores are skipped")
        return nil
    }()

    public static var available: Bool { directory != nil }
    public static var photos: String { directory! + "/photos-10.15.7/Photos.sqlite" }
    public static var photosToken: String { directory! + "/photos-10.15.7/HistoryToken.plist" }
    public static var swiftData: String { directory! + "/swiftdata-resources/default.store" }
    public static let photosUUID = "FE941CCE-3AF4-4243-907C-C2233C09008D"
}
