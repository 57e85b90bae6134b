import Foundation

/// Whole-file reads through FileHandle. `FileManager.contents(atPath:)` and
/// `Data(contentsOf:)` of the Linux toolchain's FoundationEssentials (Swift
/// 6.3.1) leak a 4 KiB buffer for every empty file they read, which
/// LeakSanitizer reports at exit (a zero-length plist given to --defaults is
/// such a file).
public enum FileContents {
    /// The bytes of the file at `path`; nil when it does not exist or cannot
    /// be read (no permission, a directory).
    public static func read(_ path: String) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            return nil
        }
    }
}
