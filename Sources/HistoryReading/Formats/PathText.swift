/// Paths as text, split on "/" in Swift. Foundation's `NSString` path methods trap on some
/// one-character strings on Linux (swift-corelibs-foundation's `deletingLastPathComponent`
/// of "a"), and they tidy a path ("a//b" becomes "a/b"), so a name would no longer be the
/// path inside a backup or an archive that it was built from.
public enum PathText {
    /// The folder part: "" for a bare name, "/" for a name at the root.
    public static func parent(_ path: String) -> String {
        let p = trimmed(path)
        guard let slash = p.lastIndex(of: "/") else { return "" }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    /// The last part ("" for "/").
    public static func last(_ path: String) -> String {
        let p = trimmed(path)
        guard let slash = p.lastIndex(of: "/") else { return String(p) }
        return String(p[p.index(after: slash)...])
    }

    /// `folder` and `name` with one "/" between them.
    public static func join(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The extension of a file name, lowercased ("" without one).
    package static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Whether a file is a store's companion: its `-wal`, `-shm` or `-journal`.
    package static func isCompanion(_ name: String) -> Bool {
        name.hasSuffix("-wal") || name.hasSuffix("-shm") || name.hasSuffix("-journal")
    }

    /// Whether a file or folder is one of cdhist's own copies: a repair's or a purge's backup
    /// (`NAME.cdhist-backup-…`), a provocation's folder of copies (`STORE.cdhist-provoke`) or a
    /// file an undo is putting back (`NAME.cdhist-undo-…`), never the app's own.
    package static func isCdhistCopy(_ name: String) -> Bool {
        name.contains(".cdhist-backup-") || name.hasSuffix(".cdhist-provoke") || name.contains(".cdhist-undo-")
    }

    /// Whether `head` begins as every SQLite database does.
    package static func isSQLite<C: Collection>(_ head: C) -> Bool where C.Element == UInt8 {
        head.starts(with: sqliteMagic)
    }

    static let sqliteMagic = Array("SQLite format 3\0".utf8)

    private static func trimmed(_ path: String) -> Substring {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        return p
    }
}
