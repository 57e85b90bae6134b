import Foundation
import GRDB

/// Options for opening a store.
public struct OpenOptions: Equatable, Sendable {
    /// How long to wait for another process's lock before giving up.
    public var busyTimeout: Double

    /// Options with a lock timeout in seconds.
    public init(busyTimeout: Double = 2) {
        self.busyTimeout = busyTimeout
    }

    /// The lock timeouts SQLite takes (milliseconds in an Int32, which GRDB
    /// converts with a trap): up to a day.
    public static let busyTimeoutRange = 0.0...86_400.0

    /// `seconds` within ``busyTimeoutRange`` (a NaN waits not at all).
    static func clampedBusyTimeout(_ seconds: Double) -> Double {
        seconds.isNaN ? 0 : min(max(seconds, busyTimeoutRange.lowerBound), busyTimeoutRange.upperBound)
    }
}

/// A read-only SQLite connection to a store that never writes beside it.
///
/// - WAL store with `-wal` and `-shm`: opened `mode=ro&readonly_shm=1`, so
///   SQLite maps `-shm` read-only and, when no other process has it open,
///   reads the WAL into private memory instead of rebuilding the index.
/// - WAL store without `-wal`: nothing is in a WAL, so `immutable=1` reads the
///   main file without SQLite creating a `-wal` or `-shm`. The same for a `-wal`
///   without one whole frame (a copy cut short): it holds nothing SQLite would
///   read, and with an `-shm` SQLite retries its bare header for 10 s and fails.
/// - Rollback-journal store: `mode=ro` (a live writer's lock is respected).
/// - `-wal` without `-shm`, or a hot rollback journal SQLite would have to
///   roll back: reading would mean writing, so the files are copied to a
///   private temporary directory and read there (and the caller is told).
final class StoreConnection {
    let queue: DatabaseQueue
    let path: String
    let files: StoreFiles
    let notices: [StoreNotice]
    private let busyTimeout: Double
    private let snapshotDirectory: URL?

    init(path: String, options: OpenOptions) throws {
        let (files, header) = try StoreFiles.inspect(path)
        self.path = path
        self.files = files
        busyTimeout = options.busyTimeout
        var notices: [StoreNotice] = []
        if files.walSize != nil && files.shmSize == nil { notices.append(.walWithoutShm(path: path)) }
        if files.walSize == nil && files.shmSize != nil { notices.append(.shmWithoutWal(path: path)) }

        // A -wal shorter than its header and one frame holds no transaction.
        let walHoldsNothing = header.isWAL && (files.walSize.map { $0 > 0 && $0 < Int64(32 + 24 + header.pageSize) } ?? false)
        if walHoldsNothing, let size = files.walSize { notices.append(.walWithoutFrames(path: path, bytes: size)) }
        var snapshotReason: String?
        if header.isWAL && files.walSize != nil && files.shmSize == nil && !walHoldsNothing {
            snapshotReason = "SQLite cannot read the WAL without creating -shm"
        }
        if snapshotReason == nil {
            let mode = header.isWAL ? (files.walSize == nil || walHoldsNothing ? "immutable=1" : "mode=ro&readonly_shm=1") : "mode=ro"
            do {
                queue = try Self.openQueue(uri: Self.uri(path, mode), readonly: true, options: options, reportedPath: path)
                snapshotDirectory = nil
                self.notices = notices
                return
            } catch let error as DatabaseError where Self.needsWrite(error) {
                snapshotReason = "SQLite cannot read this store without writing beside it (\(error.resultCode))"
            }
        }
        let reason = snapshotReason ?? ""
        let dir = try Self.makeSnapshot(of: files)
        do {
            let copy = dir.appendingPathComponent("store.sqlite").path
            queue = try Self.openQueue(uri: Self.uri(copy, "mode=rw"), readonly: false, options: options, reportedPath: path)
            try queue.inDatabase { try $0.execute(sql: "PRAGMA query_only = 1") }
        } catch {
            try? FileManager.default.removeItem(at: dir)
            throw error
        }
        snapshotDirectory = dir
        notices.append(.readFromSnapshot(path: path, reason: reason))
        self.notices = notices
    }

    deinit {
        try? queue.close()
        if let dir = snapshotDirectory { try? FileManager.default.removeItem(at: dir) }
    }

    /// Runs `body` with the connection, mapping SQLite failures to ``StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase(body)
        } catch let error as DatabaseError {
            throw Self.storeError(error, path: path, timeout: busyTimeout)
        }
    }

    private static func uri(_ path: String, _ query: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var escaped = ""
        for ch in absolute.unicodeScalars {
            switch ch {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(ch)
            }
        }
        return "file:\(escaped)?\(query)"
    }

    private static func openQueue(uri: String, readonly: Bool, options: OpenOptions, reportedPath: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = readonly
        config.busyMode = .timeout(OpenOptions.clampedBusyTimeout(options.busyTimeout))
        config.label = "cdhist"
        do {
            return try DatabaseQueue(path: uri, configuration: config)
        } catch let error as DatabaseError where !needsWrite(error) {
            throw storeError(error, path: reportedPath, timeout: options.busyTimeout)
        }
    }

    /// Whether the failure means SQLite would have to write to read (so a snapshot helps).
    private static func needsWrite(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_READONLY, .SQLITE_CANTOPEN: return true
        default: return false
        }
    }

    static func storeError(_ error: DatabaseError, path: String, timeout: Double) -> StoreError {
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path, seconds: timeout)
        case .SQLITE_INTERRUPT: return .interrupted(path: path)
        case .SQLITE_CORRUPT: return .corrupt(path: path, reason: message)
        case .SQLITE_NOTADB: return .notSQLite(path: path, reason: message)
        case .SQLITE_IOERR where error.extendedResultCode == .SQLITE_IOERR_SHORT_READ:
            return .corrupt(path: path, reason: "file ends inside a page (\(message))")
        default: return .sqlite(path: path, message: message)
        }
    }

    private static func makeSnapshot(of files: StoreFiles) throws -> URL {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("cdhist-snapshot-\(UUID().uuidString)")
        do {
            try fm.createDirectory(at: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let target = dir.appendingPathComponent("store.sqlite").path
            try fm.copyItem(atPath: files.path, toPath: target)
            if files.walSize != nil { try fm.copyItem(atPath: files.walPath, toPath: target + "-wal") }
            if files.journalSize != nil { try fm.copyItem(atPath: files.journalPath, toPath: target + "-journal") }
            for suffix in ["", "-wal", "-journal"] where fm.fileExists(atPath: target + suffix) {
                try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target + suffix)
            }
        } catch {
            try? fm.removeItem(at: dir)
            throw StoreError.snapshotFailed(path: files.path, reason: "\(error.localizedDescription)")
        }
        return dir
    }
}
