import Foundation

/// Files of the repository the tests read.
public enum Repository {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The committed fixtures.
    public static let fixtures = root.appendingPathComponent("fixtures").path
}

/// Paths to `../shared/real-stores`, when the repository sits beside `shared/`;
/// tests against them are skipped, with a printed notice, when it does not, or when
/// `CDHIST_TESTS_WITHOUT_SHARED=1` asks the suite to run as on a fresh clone.
public enum RealStores {
    /// Where the real stores are looked for.
    private static let expected = Repository.root.deletingLastPathComponent().appendingPathComponent(
        "shared/real-stores"
    ).path
    public static let directory: String? = {
        if ProcessInfo.processInfo.environment["CDHIST_TESTS_WITHOUT_SHARED"] == "1" {
            print(
                """
                NOTICE: CDHIST_TESTS_WITHOUT_SHARED=1: tests run as on a fresh clone; tests against real Core \
                Data stores are skipped
                """
            )
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

/// The stores of `../shared/corpus`: real stores for checks that must hold on every one of them
/// (each file with SQLite's header, beside its `-wal` and `-shm` if any, in any folder below).
/// A store added to the corpus is taken with the rest. Skipped, with a printed notice, when the
/// folder is absent or `CDHIST_TESTS_WITHOUT_SHARED=1`.
public enum Corpus {
    private static let expected = Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        .path

    public static let directory: String? = {
        if ProcessInfo.processInfo.environment["CDHIST_TESTS_WITHOUT_SHARED"] == "1" { return nil }
        if FileManager.default.fileExists(atPath: expected) { return expected }
        print("NOTICE: \(expected) not found; tests over the corpus of real stores are skipped")
        return nil
    }()

    public static var available: Bool { directory != nil }

    /// Every store of the corpus, by path, in name order (none without the corpus).
    public static let stores: [String] = {
        guard let directory, let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            let path = directory + "/" + relative
            guard !["-wal", "-shm", "-journal"].contains(where: relative.hasSuffix),
                let handle = FileHandle(forReadingAtPath: path)
            else { continue }
            defer { try? handle.close() }
            if (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8) { found.append(path) }
        }
        return found.sorted()
    }()
}
