import Foundation

/// A store as one fuzzer input: the main file, optionally followed by a WAL.
///
/// The main file is as long as its header says (page count × page size) when
/// a WAL header starts right after that; otherwise the whole input is the main file.
public struct StoreInput {
    public var main: [UInt8]
    public var wal: [UInt8]?

    public init(main: [UInt8], wal: [UInt8]?) {
        self.main = main
        self.wal = wal
    }

    public init(_ bytes: [UInt8]) {
        if let length = Self.mainLength(bytes), length < bytes.count, Self.isWAL(bytes, at: length) {
            main = Array(bytes[..<length])
            wal = Array(bytes[length...])
        } else {
            main = bytes
            wal = nil
        }
    }

    public var bytes: [UInt8] { main + (wal ?? []) }

    static let sqliteMagic = Array("SQLite format 3\0".utf8)

    /// The page size the header gives (4096 when it gives none that is valid).
    public static func pageSize(_ main: [UInt8]) -> Int {
        guard main.count >= 100, Array(main[0..<16]) == sqliteMagic else { return 4096 }
        let raw = Int(main[16]) << 8 | Int(main[17])
        let size = raw == 1 ? 65536 : raw
        return size >= 512 && size & (size - 1) == 0 ? size : 4096
    }

    /// Page count × page size from the header, when the header has both.
    static func mainLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 100, Array(bytes[0..<16]) == sqliteMagic else { return nil }
        let pages = Int(bytes[28]) << 24 | Int(bytes[29]) << 16 | Int(bytes[30]) << 8 | Int(bytes[31])
        let length = pages * pageSize(bytes)
        return pages > 0 ? length : nil
    }

    static func isWAL(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard offset + 32 <= bytes.count else { return false }
        return bytes[offset] == 0x37 && bytes[offset + 1] == 0x7F && bytes[offset + 2] == 0x06
            && bytes[offset + 3] & 0xFE == 0x82
    }

    /// Writes the store as `name` (with `-wal`, and `-shm` when `withShm`) in
    /// `directory`, removing files of a previous input.
    public func write(to directory: URL, name: String = "store.sqlite", withShm: Bool) throws -> String {
        let path = directory.appendingPathComponent(name).path
        let fm = FileManager.default
        for suffix in ["-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: path + suffix) }
        try Data(main).write(to: URL(fileURLWithPath: path))
        if let wal {
            try Data(wal).write(to: URL(fileURLWithPath: path + "-wal"))
            // An -shm that no process has initialised, as a copied store has.
            if withShm { try Data(count: 32768).write(to: URL(fileURLWithPath: path + "-shm")) }
        }
        return path
    }
}

/// A private scratch folder for this process, removed at exit.
public enum Scratch {
    public static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cdhist-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Scratch.directory) }
        return url
    }()
}
