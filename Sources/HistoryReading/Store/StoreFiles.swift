import Foundation

/// The files that make up a store on disk, and what their headers say.
public struct StoreFiles: Equatable, Sendable {
    /// Path of the main database file.
    public var path: String
    /// Sizes in bytes; nil when the file does not exist.
    public var mainSize: Int64
    public var walSize: Int64?
    public var shmSize: Int64?
    public var journalSize: Int64?

    /// The main file's real path, links resolved: SQLite keeps `-wal`, `-shm` and `-journal` beside it.
    public var location: String

    public var walPath: String { location + "-wal" }
    public var shmPath: String { location + "-shm" }
    public var journalPath: String { location + "-journal" }

    /// What SQLite appends to a store's name for the files it keeps beside it: the write-ahead
    /// log, the log's index and the rollback journal.
    public static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// A store's own files: its main file (links resolved) and, whether they exist or not, its
    /// `-wal`, `-shm` and `-journal` beside it, in that order.
    public static func paths(of store: String) -> [String] {
        let location = FileStatus.resolvedPath(store)
        return [location] + companionSuffixes.map { location + $0 }
    }

    /// Inspects the files around `path` (through a link, around the file it names) without
    /// opening them with SQLite. Only a regular file is read: a FIFO or a device would block
    /// or never end.
    /// `name` is how errors name the file (a store inside a backup is read under another path).
    static func inspect(_ readPath: String, name: String? = nil) throws -> (files: StoreFiles, header: SQLiteHeader) {
        do {
            return try inspect(readPath)
        } catch let error as StoreError where name != nil && name != readPath {
            throw error.renamed(from: readPath, to: name ?? readPath)
        }
    }

    private static func inspect(_ path: String) throws -> (files: StoreFiles, header: SQLiteHeader) {
        guard let status = FileStatus(path) else { throw StoreError.fileNotFound(path: path) }
        switch status.kind {
        case .regular: break
        case .directory: throw StoreError.isDirectory(path: path)
        case let kind: throw StoreError.unreadable(path: path, reason: "not a regular file but \(kind.description)")
        }
        let location = FileStatus.resolvedPath(path)
        guard let handle = FileHandle(forReadingAtPath: location) else {
            throw StoreError.unreadable(path: path, reason: FileAccess.whyUnreadable(path) ?? "permission denied")
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        let size = status.size
        let header = try SQLiteHeader(bytes: head, path: path)
        let walSize = Self.size(location + "-wal")
        // With WAL content the main file's header does not bound the database: a checkpoint
        // writes page 1 (with the new page count) before the pages that extend the file, so a
        // live store is briefly "shorter than its header" (seen once in 240,972 reads while an
        // app committed). A truncated copy is then reported by SQLite when it reads the gap.
        if let declared = header.declaredSize, declared > size, !(header.isWAL && (walSize ?? 0) > 0) {
            throw StoreError.truncated(path: path, expectedBytes: declared, actualBytes: size)
        }
        if size % Int64(header.pageSize) != 0 {
            throw StoreError.truncated(
                path: path, expectedBytes: (size / Int64(header.pageSize) + 1) * Int64(header.pageSize),
                actualBytes: size)
        }
        let files = StoreFiles(
            path: path, mainSize: size, walSize: walSize, shmSize: Self.size(location + "-shm"),
            journalSize: Self.size(location + "-journal"), location: location)
        return (files, header)
    }

    /// The header's size and the file's, when the main file is shorter than its
    /// header says (a truncated copy); nil otherwise or when unreadable.
    static func shortOfHeader(_ path: String) -> (declared: Int64, actual: Int64)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        guard let size = Self.size(path), let declared = (try? SQLiteHeader(bytes: head, path: path))?.declaredSize,
            declared > size
        else { return nil }
        return (declared, size)
    }

    /// The size of the file `path` names (through links); nil when there is none.
    package static func size(_ path: String) -> Int64? {
        FileStatus(path)?.size
    }
}

/// The fields of the 100-byte SQLite header that opening depends on.
struct SQLiteHeader: Equatable, Sendable {
    var pageSize: Int
    /// 1 = rollback journal, 2 = WAL (bytes 18 and 19).
    var writeVersion: UInt8
    var readVersion: UInt8
    /// Page count × page size when the in-header size is valid.
    var declaredSize: Int64?

    var isWAL: Bool { writeVersion == 2 || readVersion == 2 }

    init(bytes: [UInt8], path: String) throws {
        guard !bytes.isEmpty else { throw StoreError.notSQLite(path: path, reason: "empty file") }
        guard PathText.isSQLite(bytes) else {
            throw StoreError.notSQLite(path: path, reason: "no SQLite header")
        }
        guard bytes.count == 100 else {
            throw StoreError.truncated(path: path, expectedBytes: 100, actualBytes: Int64(bytes.count))
        }
        func be(_ at: Int, _ n: Int) -> UInt64 { (0..<n).reduce(0) { $0 << 8 | UInt64(bytes[at + $1]) } }
        let rawPage = Int(be(16, 2))
        let page = rawPage == 1 ? 65536 : rawPage
        guard page >= 512, page <= 65536, page & (page - 1) == 0 else {
            throw StoreError.corrupt(path: path, reason: "invalid page size \(rawPage) in header")
        }
        pageSize = page
        writeVersion = bytes[18]
        readVersion = bytes[19]
        let pages = be(28, 4)
        let changeCounter = be(24, 4)
        let validFor = be(92, 4)
        declaredSize = pages > 0 && changeCounter == validFor ? Int64(pages) * Int64(page) : nil
    }
}
