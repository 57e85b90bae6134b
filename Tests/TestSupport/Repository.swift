import Foundation

/// Files of the repository the tests read.
public enum Repository {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The committed fixtures.
    public static let fixtures = root.appendingPathComponent("fixtures").path
}

/// Paths to `../shared/real-stores`, when the repository sits beside `shared/`;
/// tests against them are skipped, with a printed notice, when it does not, or when
/// `CDHIST_TESTS_WITHOUT_SHARED=1` asks the suite to run as on a fresh clone.
public enum RealStores {
    /// Where the real stores are looked for.
    private static let expected = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/real-stores").path
    public static let directory: String? = {
        if ProcessInfo.processInfo.environment["CDHIST_TESTS_WITHOUT_SHARED"] == "1" {
            print("NOTICE: CDHIST_TESTS_WITHOUT_SHARED=1: tests run as on a fresh clone; tests against real Core Data stores are skipped")
            return nil
        }
        if FileManager.default.fileExists(atPath: expected) { return expected }
        print("NOTICE: \(expected) not found; tests against real Core Data stores are skipped")
        return nil
    }()

    public static var available: Bool { directory != nil }
    // The paths are named even when the folder is missing: test arguments compare
    // against them, and the tests that open them are disabled without the folder.
    public static var photos: String { expected + "/photos-10.15.7/Photos.sqlite" }
    public static var photosToken: String { expected + "/photos-10.15.7/HistoryToken.plist" }
    public static var swiftData: String { expected + "/swiftdata-resources/default.store" }
    /// The same Photos library after macOS 15.4.1 (sibling entities with same-named attributes).
    public static var photos15: String { expected + "/photos-15.4.1/Photos.sqlite" }
    public static let photosUUID = "FE941CCE-3AF4-4243-907C-C2233C09008D"
}
