import Foundation

/// Whole-file reads of the small files cdhist is given (plists, tokens, models, configs),
/// through FileHandle. Only a regular file (links followed) of at most ``limit`` bytes is
/// read: a FIFO would block forever, `/dev/zero` never end, and a sparse file of gigabytes
/// fill the memory. (`FileManager.contents(atPath:)` and `Data(contentsOf:)` of the Linux
/// toolchain's FoundationEssentials (Swift 6.3.1) also leak a 4 KiB buffer for every empty
/// file they read, which LeakSanitizer reports at exit.)
public enum FileContents {
    /// The largest file read whole: far above any defaults plist, token, model or config.
    public static let limit: Int64 = 256 << 20

    /// The bytes of the file at `path`; nil when it cannot be read (``whyUnreadable(_:)`` says why).
    public static func read(_ path: String) -> Data? {
        guard let status = FileStatus(path), status.kind == .regular, status.size <= limit,
            let handle = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? handle.close() }
        do {
            // Read no more than the limit, should the file grow meanwhile.
            return try handle.read(upToCount: Int(limit) + 1).map { $0.count > limit ? nil : $0 } ?? Data()
        } catch {
            return nil
        }
    }

    /// Why ``read(_:)`` returns nil for `path`, in words a user can act on; nil when it can be read.
    public static func whyUnreadable(_ path: String) -> String? {
        guard let status = FileStatus(path) else { return FileAccess.whyUnreadable(path) ?? "no such file" }
        guard status.kind == .regular else { return "not a regular file but \(status.kind)" }
        guard status.size <= limit else {
            return "larger than \(limit >> 20) MiB, the most cdhist reads of such a file"
        }
        return FileAccess.whyUnreadable(path)
    }
}
