import CSQLiteConfig
import CWALView
import Foundation
import GRDB
import GRDBSQLite

/// Options for opening a store.
public struct OpenOptions: Equatable, Sendable {
    /// How long to wait for another process's lock before giving up.
    public var busyTimeout: Double
    /// Read the store as it was after this save (a commit of its `-wal`, from 1); nil: as it is.
    public var atSave: Int?

    /// Options with a lock timeout in seconds, and the save to read the store at.
    public init(busyTimeout: Double = 2, atSave: Int? = nil) {
        self.busyTimeout = busyTimeout
        self.atSave = atSave
    }

    /// The lock timeouts SQLite takes (milliseconds in an Int32, which GRDB
    /// converts with a trap): up to a day.
    public static let busyTimeoutRange = 0.0...86_400.0

    /// `seconds` within ``busyTimeoutRange`` (a NaN waits not at all).
    package static func clampedBusyTimeout(_ seconds: Double) -> Double {
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
package final class StoreConnection {
    let queue: DatabaseQueue
    let path: String
    let files: StoreFiles
    let notices: [StoreNotice]
    /// Whether the header says WAL mode (commits go to the `-wal`, checkpoints to the main file).
    let usesWAL: Bool
    /// How the files were opened.
    let access: StoreAccess
    /// The save the store is read at, when one was asked for.
    private(set) var savePoint: SavePoint?
    private let busyTimeout: Double
    private let snapshotDirectory: URL?
    /// How `queue` was opened, for a second connection (``read(_:beside:)``).
    private let uri: String
    private let readonly: Bool
    /// The other connections while they run, so that ``interrupt()`` reaches them too.
    private let besideLock = NSLock()
    private var besideQueues: [DatabaseQueue] = []
    /// Set by ``interrupt()`` until ``clearInterrupt()``: every statement of every connection
    /// fails while it is set, also one that starts after the call (SQLite's own interrupt
    /// reaches only the statements running at that moment, and a command writing its output
    /// between two statements would miss it).
    private let interruption: Locked<Bool>
    private let closedFlag = Locked(false)
    /// The connection inside ``read(_:)`` and the thread running it: a read made
    /// from inside another on that thread joins its read transaction.
    private let activeLock = NSLock()
    private var active: (thread: pthread_t, db: Database)?

    /// SQLite set up once, before its first connection, for reads on several cores.
    private static let sqliteConfigured: Void = { _ = cdhist_sqlite_no_memory_statistics() }()

    /// Opens the store `path` names. A store inside a backup or an archive (`files`) is read
    /// where it lies when it has no `-wal` (a backup's file, under its hashed name, has nothing
    /// beside it), or from the private folder it was assembled in, which this connection then owns.
    init(path: String, options: OpenOptions, files packed: PackedStoreFiles? = nil) throws {
        Self.sqliteConfigured
        let interruption = Locked(false)
        self.interruption = interruption
        var (files, header) = try StoreFiles.inspect(packed?.path ?? path, name: path)
        files.path = path
        self.path = path
        self.files = files
        usesWAL = header.isWAL
        busyTimeout = OpenOptions.clampedBusyTimeout(options.busyTimeout)
        if let dir = packed?.assembledIn {
            (queue, uri) = try Self.openPrivateCopy(
                files.location, in: dir, options: options, reportedPath: path, interruption: interruption)
            access = .packed(copied: true)
            readonly = false
            snapshotDirectory = dir
            notices = []
            return
        }
        if let save = options.atSave {
            let point: SavePoint
            let hidden: WALLog.HiddenFrames?
            (queue, uri, point, hidden) = try Self.openAtSave(
                save, files: files, header: header, options: options, reportedPath: path,
                interruption: interruption)
            access = .atSave(save, of: point.of)
            savePoint = point
            readonly = true
            snapshotDirectory = packed?.assembledIn
            // Whether that state is partial, and why, is the save point's to say (every output says it first).
            notices = hidden.map { [.walDamaged(path: path, hidden: $0)] } ?? []
            return
        }
        var notices: [StoreNotice] = []
        if files.walSize != nil && files.shmSize == nil { notices.append(.walWithoutShm(path: path)) }
        if files.walSize == nil && files.shmSize != nil { notices.append(.shmWithoutWal(path: path)) }

        // A -wal SQLite can use nothing of: the main file alone is the store.
        // A -wal of just its header is what a copy cut short leaves, and also what a running app
        // leaves for a moment after a checkpoint: with a live connection on the -shm, SQLite reads it.
        let live = files.shmSize != nil && Self.hasLiveConnection(shm: files.shmPath)
        let walProblem =
            header.isWAL && !live
            ? files.walSize.flatMap { Self.walProblem(files.walPath, size: $0, pageSize: header.pageSize) } : nil
        let walHoldsNothing = walProblem != nil
        if let walProblem { notices.append(.walUnusable(path: path, reason: walProblem)) }
        // A damaged frame hides the commits after it: SQLite reads the log up to it, without a word.
        if header.isWAL && !live && !walHoldsNothing, let hidden = Self.hiddenFrames(files, pageSize: header.pageSize) {
            notices.append(.walDamaged(path: path, hidden: hidden))
        }
        var snapshotReason: String?
        if header.isWAL && files.walSize != nil && files.shmSize == nil && !walHoldsNothing {
            snapshotReason = "SQLite cannot read the WAL without creating -shm"
        }
        if snapshotReason == nil {
            let (mode, how): (String, StoreAccess) =
                !header.isWAL
                ? ("mode=ro", .readOnly)
                : files.walSize == nil || walHoldsNothing
                    ? ("immutable=1", .immutable) : ("mode=ro&readonly_shm=1", .readOnlyWithWAL)
            do {
                let uri = SQLiteURI.file(files.location, mode)
                queue = try Self.openQueue(
                    uri: uri, readonly: true, options: options, reportedPath: path, interruption: interruption)
                self.uri = uri
                access = packed != nil ? .packed(copied: false) : how
                readonly = true
                snapshotDirectory = nil
                self.notices = notices
                return
            } catch let error as DatabaseError where Self.needsWrite(error) {
                snapshotReason = "SQLite cannot read this store without writing beside it (\(error.resultCode))"
            }
        }
        let reason = snapshotReason ?? ""
        let dir = try Self.makeSnapshot(of: files)
        (queue, uri) = try Self.openPrivateCopy(
            dir.appendingPathComponent("store.sqlite").path, in: dir, options: options,
            reportedPath: path, interruption: interruption)
        access = .privateCopy(reason: reason)
        readonly = false
        snapshotDirectory = dir
        notices.append(.readFromSnapshot(path: path, reason: reason))
        self.notices = notices
    }

    /// Opens the store as it was after save `save`: through the read-only view of CWALView, which
    /// shows the `-wal` through that commit and keeps the WAL index in memory; with why that state
    /// cannot be rebuilt exactly, when it cannot.
    private static func openAtSave(
        _ save: Int, files: StoreFiles, header: SQLiteHeader, options: OpenOptions, reportedPath: String,
        interruption: Locked<Bool>
    ) throws -> (DatabaseQueue, String, SavePoint, WALLog.HiddenFrames?) {
        guard header.isWAL else {
            throw WALError.noSaves(
                path: reportedPath, reason: "it is not in WAL mode, so it keeps no saves to go back to")
        }
        guard files.walSize != nil else {
            throw WALError.noSaves(
                path: reportedPath,
                reason: "it has no -wal, so there is no save \(save): the main file alone is the store")
        }
        let log = try WALLog.read(files.walPath, pageSize: header.pageSize)
        // Save 0 is the main file as it was before the first (the log's header alone is shown).
        guard (0...log.commits.count).contains(save), save > 0 || !log.commits.isEmpty else {
            throw WALError.noSuchSave(path: reportedPath, save: save, count: log.commits.count)
        }
        guard cdhist_wal_view_register() == SQLITE_OK else {
            throw StoreError.unreadable(path: reportedPath, reason: "SQLite refused the read-only view of its saves")
        }
        let uri = Self.viewURI(files.location, log: log, throughCommit: save)
        let partial = SaveExactness.of(log, mainPath: files.location, shmPath: files.shmPath).reason(ofState: save)
        do {
            let queue = try openQueue(
                uri: uri, readonly: true, options: options, reportedPath: reportedPath, interruption: interruption)
            return (
                queue, uri,
                SavePoint(save: save, of: log.commits.count, why: partial, walBytes: log.length(throughCommit: save)),
                log.hidden
            )
        } catch let error as StoreError {
            guard let partial, error.isDamage else { throw error }
            throw StoreError.unreadablePartialSave(path: reportedPath, save: save, reason: partial)
        }
    }

    /// The read-only view of the store at `location` with its `-wal` shown through commit `n`
    /// (0: its header alone, the main file by itself). The view checks, at each read, that the
    /// log is still the one whose commits were counted.
    static func viewURI(_ location: String, log: WALLog, throughCommit n: Int) -> String {
        SQLiteURI.file(
            location,
            """
            vfs=cdhist-wal-view&mode=ro&walsize=\(log.length(throughCommit: n))&walheader=\(log.header.bytes.hexString)
            """
        )
    }

    /// A connection through the view: it never grants the lock a checkpoint needs, so closing is
    /// told not to try; sorts and temporary tables stay in memory (the view opens no file but the
    /// store and its -wal).
    static func prepareView(_ db: Database) throws {
        _ = cdhist_sqlite_no_checkpoint_on_close(UnsafeMutableRawPointer(db.sqliteConnection))
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
    }

    /// Opens the copy `copy` in the private folder `dir` (SQLite may write beside it there, and
    /// `query_only` keeps it from writing to it); the folder is removed when opening fails.
    private static func openPrivateCopy(
        _ copy: String, in dir: URL, options: OpenOptions, reportedPath: String,
        interruption: Locked<Bool>
    ) throws -> (DatabaseQueue, String) {
        do {
            let uri = SQLiteURI.file(copy, "mode=rw")
            let queue = try Self.openQueue(
                uri: uri, readonly: false, options: options, reportedPath: reportedPath, interruption: interruption)
            try queue.inDatabase { try $0.execute(sql: "PRAGMA query_only = 1") }
            return (queue, uri)
        } catch {
            try? FileManager.default.removeItem(at: dir)
            throw error
        }
    }

    deinit {
        try? queue.close()
        if let dir = snapshotDirectory { try? FileManager.default.removeItem(at: dir) }
    }

    /// Runs `body` with the connection inside one read transaction, mapping
    /// SQLite failures to ``StoreError``. Every statement of `body` reads the
    /// same snapshot: counts taken one after another agree even while an app
    /// commits between them. Reads `body` makes (on its thread) join it.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        // A read begun after Ctrl-C stops at once: the progress handler sees only statements of
        // 1000 steps or more, and a command of many short reads (labels, lookups) has few of those.
        if interruption.current { throw StoreError.interrupted(path: path) }
        if isClosed { throw StoreError.closed(path: path) }
        let outer = activeLock.withLock {
            active.flatMap { pthread_equal($0.thread, pthread_self()) != 0 ? $0.db : nil }
        }
        if let outer { return try body(outer) }
        var attempts = 0
        while true {
            var began = false
            do {
                return try queue.inDatabase { db in
                    activeLock.withLock { active = (pthread_self(), db) }
                    defer { activeLock.withLock { active = nil } }
                    if db.isInsideTransaction { return try body(db) }
                    try db.execute(sql: "BEGIN DEFERRED")
                    defer {
                        // A read commits; should it fail, roll back (GRDB stops the process on a transaction left
                        // open).
                        if db.isInsideTransaction { try? db.execute(sql: "COMMIT") }
                        if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    }
                    // The snapshot is taken here, before `body` reads (or writes out) anything.
                    try db.execute(sql: "SELECT 1 FROM sqlite_master LIMIT 1")
                    began = true
                    return try body(db)
                }
            } catch let error as DatabaseError
                where !began && attempts < Self.snapshotAttempts && Self.isTornWALIndex(error, access: access)
            {
                // Another connection was rewriting the WAL index as this one read it: taken again, it is whole.
                attempts += 1
                usleep(10_000)
            } catch let error as DatabaseError {
                throw Self.storeError(error, path: path, timeout: busyTimeout, readPath: files.location)
            }
        }
    }

    /// How many times a read tries to take its snapshot of a store another process is writing.
    static let snapshotAttempts = 50

    /// Whether `error` is what a connection mapping the `-shm` read-only meets when it reads the WAL
    /// index while the app's connection is rewriting it (SQLITE_READONLY_RECOVERY, or the index
    /// not yet set up): SQLite cannot repair the index without writing, and the app finishes it at once.
    static func isTornWALIndex(_ error: DatabaseError, access: StoreAccess) -> Bool {
        guard case .readOnlyWithWAL = access else { return false }
        return error.resultCode == .SQLITE_READONLY
    }

    /// Runs `body` on this connection and, at the same time, `beside` on a
    /// second connection to the same files on another thread: two reads of
    /// different b-trees on two cores. `beside` may see a commit made after
    /// `body` began (use it for estimates, not for counts that must agree).
    /// When the second connection cannot be opened, both run here in turn.
    func read<A, B>(_ body: (Database) throws -> A, beside: @escaping (Database) throws -> B) throws -> (A, B) {
        guard let second = openBeside() else {
            return try read { db in (try body(db), try beside(db)) }
        }
        defer { closeBeside(second) }
        let job = BesideJob(queue: second, body: beside)
        Thread.detachNewThread { job.run() }
        let first = Result { try read(body) }
        job.finished.wait()
        return (try first.get(), try result(of: job) ?? read(beside))
    }

    /// Runs `body(db, part)` for each part in `0..<parts` at the same time: part 0
    /// on this connection (inside ``read(_:)``, joining a read it is called from),
    /// the others on connections of their own, each on its own thread; parts
    /// without a connection run here in turn. Parts may see commits made after
    /// part 0 began. Results in part order.
    func readInParallel<T>(_ parts: Int, _ body: @escaping (Database, Int) throws -> T) throws -> [T] {
        var others: [DatabaseQueue] = []
        for _ in 1..<max(parts, 1) {
            guard let queue = openBeside() else { break }
            others.append(queue)
        }
        defer { for queue in others { closeBeside(queue) } }
        let jobs = others.enumerated().map { i, queue in BesideJob(queue: queue) { try body($0, i + 1) } }
        for job in jobs { Thread.detachNewThread { job.run() } }
        let first = Result { try read { try body($0, 0) } }
        for job in jobs { job.finished.wait() }
        var results = [try first.get()]
        for (i, job) in jobs.enumerated() {
            results.append(try result(of: job) ?? read { try body($0, i + 1) })
        }
        for part in results.count..<max(parts, 1) { results.append(try read { try body($0, part) }) }
        return results
    }

    /// ``readInParallel(_:_:)`` over this store and `other` at once: part `i` reads
    /// this store on `body`'s first database and `other` on its second, part 0 on
    /// both stores' own connections (joining reads they are called from), the others
    /// on connections of their own; a part without one for `other` reads it on
    /// `other`'s own connection, in turn. An SQLite error is named after this store
    /// unless `body` names it (``storeError(_:)``).
    package func readInParallel<T>(
        _ parts: Int, pairedWith other: StoreConnection, _ body: @escaping (Database, Database, Int) throws -> T
    ) throws -> [T] {
        var others: [DatabaseQueue] = []
        for _ in 1..<max(parts, 1) {
            guard let queue = other.openBeside() else { break }
            others.append(queue)
        }
        defer { for queue in others { other.closeBeside(queue) } }
        let queues = others
        return try readInParallel(parts) { db, part in
            guard part > 0, part <= queues.count else { return try other.read { try body(db, $0, part) } }
            return try queues[part - 1].inDatabase { try body(db, $0, part) }
        }
    }

    /// Another connection opened as this one was (registered for ``interrupt()``), or nil.
    private func openBeside() -> DatabaseQueue? {
        do {
            let queue = try Self.openQueue(
                uri: uri, readonly: readonly, options: OpenOptions(busyTimeout: busyTimeout), reportedPath: path,
                interruption: interruption)
            if !readonly { try queue.inDatabase { try $0.execute(sql: "PRAGMA query_only = 1") } }
            besideLock.withLock { besideQueues.append(queue) }
            return queue
        } catch {
            return nil
        }
    }

    private func closeBeside(_ queue: DatabaseQueue) {
        besideLock.withLock { besideQueues.removeAll { $0 === queue } }
        try? queue.close()
    }

    /// What a finished job returned (nil when it had nothing to run), its SQLite errors as ``StoreError``s.
    private func result<B>(of job: BesideJob<B>) throws -> B? {
        switch job.result {
        case .success(let b)?: return b
        case .failure(let error as DatabaseError)?:
            throw Self.storeError(error, path: path, timeout: busyTimeout, readPath: files.location)
        case .failure(let error)?: throw error
        case nil: return nil
        }
    }

    /// Makes the running statements, and every one started until ``clearInterrupt()``,
    /// fail soon with an "interrupted" error (safe from another thread).
    func interrupt() {
        interruption.set(true)
        queue.interrupt()
        besideLock.withLock { for queue in besideQueues { queue.interrupt() } }
    }

    /// Closes the connection (a writer is about to use the files); every later read fails.
    func close() {
        closedFlag.set(true)
        try? queue.close()
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { closedFlag.current }

    /// Lets statements run again after ``interrupt()`` (the next command of a session).
    func clearInterrupt() {
        interruption.set(false)
    }

    private static func openQueue(
        uri: String, readonly: Bool, options: OpenOptions, reportedPath: String,
        interruption: Locked<Bool>
    ) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = readonly
        config.busyMode = .timeout(OpenOptions.clampedBusyTimeout(options.busyTimeout))
        config.label = "cdhist"
        // Every 1000 virtual-machine steps SQLite asks whether to stop; the flag outlives the
        // connection (the StoreConnection holding both closes its connections first).
        let throughView = uri.contains("vfs=cdhist-wal-view")
        config.prepareDatabase { db in
            if throughView { try Self.prepareView(db) }
            sqlite3_progress_handler(
                db.sqliteConnection, 1000,
                { flag in
                    guard let flag else { return 0 }
                    return Unmanaged<Locked<Bool>>.fromOpaque(flag).takeUnretainedValue().current ? 1 : 0
                }, Unmanaged.passUnretained(interruption).toOpaque())
        }
        do {
            return try DatabaseQueue(path: uri, configuration: config)
        } catch let error as DatabaseError where !needsWrite(error) {
            throw storeError(error, path: reportedPath, timeout: OpenOptions.clampedBusyTimeout(options.busyTimeout))
        }
    }

    /// Why SQLite can read nothing from the `-wal` (nil when it may): no whole
    /// frame, or a header SQLite rejects (magic, format version, page size,
    /// checksum). Beside an `-shm`, SQLite retries such a WAL for 10 s and then
    /// fails with "locking protocol". An empty `-wal` is the usual state after a
    /// checkpoint and is left to SQLite.
    /// Whether another process has the store open: every SQLite connection of a WAL
    /// store holds a shared lock on the -shm's "DMS" byte (offset 128) while it is open.
    /// Only asked (F_GETLK), never taken.
    package static func hasLiveConnection(shm path: String) -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { _ = Foundation.close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// The frames of the store's `-wal` a damaged frame hides from SQLite; nil when none does
    /// (or there is no log to read).
    static func hiddenFrames(_ files: StoreFiles, pageSize: Int) -> WALLog.HiddenFrames? {
        guard (files.walSize ?? 0) > 0 else { return nil }
        return (try? WALLog.read(files.walPath, pageSize: pageSize, hashingPages: false))?.hidden
    }

    static func walProblem(_ walPath: String, size: Int64, pageSize: Int) -> String? {
        guard size > 0 else { return nil }
        guard size >= Int64(32 + 24 + pageSize) else { return "holds no complete frame (\(size) bytes)" }
        guard let handle = FileHandle(forReadingAtPath: walPath) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 32), data.count == 32 else { return nil }
        let b = [UInt8](data)
        func word(_ at: Int, bigEndian: Bool = true) -> UInt32 {
            let bytes = b[at..<(at + 4)]
            return (bigEndian ? Array(bytes) : bytes.reversed()).reduce(0) { $0 << 8 | UInt32($1) }
        }
        let magic = word(0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else { return "has no WAL header" }
        guard word(4) == 3_007_000 else { return "has an unknown format version (\(word(4)))" }
        guard word(8) == UInt32(pageSize) else { return "has pages of \(word(8)) bytes, the database \(pageSize)" }
        // The header checksum, over its first 24 bytes in the byte order the magic names.
        var s0: UInt32 = 0
        var s1: UInt32 = 0
        for i in stride(from: 0, to: 24, by: 8) {
            s0 = s0 &+ word(i, bigEndian: magic & 1 == 1) &+ s1
            s1 = s1 &+ word(i + 4, bigEndian: magic & 1 == 1) &+ s0
        }
        guard s0 == word(24), s1 == word(28) else { return "has a damaged header (its checksum does not match)" }
        return nil
    }

    /// Whether the failure means SQLite would have to write to read (so a snapshot helps).
    private static func needsWrite(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_READONLY, .SQLITE_CANTOPEN: return true
        default: return false
        }
    }

    /// `error` as this connection's reads throw it: an SQLite failure as a ``StoreError`` naming the store.
    package func storeError(_ error: Error) -> Error {
        (error as? DatabaseError).map {
            Self.storeError($0, path: path, timeout: busyTimeout, readPath: files.location)
        } ?? error
    }

    /// `readPath`: the file SQLite read, when `path` names it otherwise (a store in a backup).
    static func storeError(_ error: DatabaseError, path: String, timeout: Double, readPath: String? = nil) -> StoreError
    {
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path, seconds: timeout)
        case .SQLITE_INTERRUPT: return .interrupted(path: path)
        case .SQLITE_CORRUPT,
            .SQLITE_IOERR where error.extendedResultCode == .SQLITE_IOERR_SHORT_READ:
            // A WAL store is opened without comparing the file to its header (a checkpoint in
            // progress makes them differ): a truncated copy shows here.
            if let short = StoreFiles.shortOfHeader(readPath ?? path) {
                return .truncated(path: path, expectedBytes: short.declared, actualBytes: short.actual)
            }
            if error.resultCode == .SQLITE_CORRUPT {
                return .corrupt(
                    path: path,
                    reason: WALMisfit.reason(location: readPath ?? path).map { "\(message); \($0)" } ?? message)
            }
            return .corrupt(path: path, reason: "file ends inside a page (\(message))")
        case .SQLITE_NOTADB: return .notSQLite(path: path, reason: message)
        default: return .sqlite(path: path, message: message)
        }
    }

    private static func makeSnapshot(of files: StoreFiles) throws -> URL {
        let fm = FileManager.default
        let dir: URL
        do {
            dir = try PrivateFolder.make("cdhist-snapshot-")
        } catch {
            throw StoreError.snapshotFailed(path: files.path, reason: "\(error.localizedDescription)")
        }
        do {
            let target = dir.appendingPathComponent("store.sqlite").path
            try fm.copyItem(atPath: files.location, toPath: target)
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

/// The work of ``StoreConnection/read(_:beside:)``'s second thread. It lets
/// go of the connection and the body (and whatever the body captured, such
/// as the store) before it signals: otherwise the thread could release the
/// last reference after the caller moved on, closing a read-only connection
/// while a writer opens the store (the writer then shares its read-only `-shm`).
// Unchecked Sendable: `work` is taken by the second thread only, and `result` is written
// before `finished` is signalled and read only after the wait (the semaphore orders them).
private final class BesideJob<B>: @unchecked Sendable {
    private var work: (queue: DatabaseQueue, body: (Database) throws -> B)?
    /// Set before ``finished`` is signalled; read after the wait.
    private(set) var result: Result<B, Error>?
    let finished = DispatchSemaphore(value: 0)

    init(queue: DatabaseQueue, body: @escaping (Database) throws -> B) {
        work = (queue, body)
    }

    func run() {
        result = Self.perform(take())
        finished.signal()
    }

    private func take() -> (queue: DatabaseQueue, body: (Database) throws -> B)? {
        defer { work = nil }
        return work
    }

    private static func perform(_ work: (queue: DatabaseQueue, body: (Database) throws -> B)?) -> Result<B, Error>? {
        guard let work else { return nil }
        return Result { try work.queue.inDatabase(work.body) }
    }
}
