import Foundation
import GRDB
import HistoryReading

/// Follows a store while an app commits to it, like `tail -f`: each
/// ``poll(_:)`` looks at the files (two `stat` calls) and, only when they
/// changed, opens the store afresh and reads the transactions committed since
/// the last one it read. Strictly a reader: it holds no connection between
/// polls (an app closing the store last still checkpoints and removes its
/// WAL), no lock a writer waits for, no read while its caller writes (a
/// watch blocked on its output lets the app checkpoint), and creates no file.
///
/// It notices what a running app does besides committing: a purge (the
/// oldest transactions gone), a checkpoint (the main file written from the
/// WAL), and throws ``WatchError`` when the store is deleted or replaced.
public final class StoreWatcher {
    /// What a poll found.
    public enum Event {
        /// A new transaction matching the filter, with its matching changes (read them inside the call).
        case transaction(Transaction, ChangeStream)
        /// Transactions `first…last` were deleted by another process: `count` of them (nil when not known).
        case purged(first: Int64, last: Int64, count: Int?)
        /// A checkpoint wrote the main file from the WAL; `walBytes` is the `-wal`'s size now (nil: none).
        case checkpoint(walBytes: Int64?)
        /// New transactions complete a burst of deletes (told once, when it is first seen).
        case massDelete(DeleteBurst)
    }

    public let path: String
    /// The file whose changes are watched: the store's, or for a store inside a backup or an
    /// archive, the backup's `Manifest.db` or the zip (a backup is rewritten as a whole).
    private let watchedPath: String
    /// The store while a poll reads it (for reads beside the events, such as labels); nil between polls.
    public private(set) var store: HistoryStore?
    public let storeUUID: String
    /// What opening the store the first time found worth telling.
    public let notices: [StoreNotice]
    /// Whether the store is in WAL mode (a change of the main file is a checkpoint).
    private var usesWAL: Bool
    /// The catalog and schema the model and decoder were made for.
    private var catalog: EntityCatalog
    private var schema: HistorySchema
    /// The model ``decoder`` decodes with.
    public private(set) var model: ModelResolution
    /// The decoder for ``store``'s changes.
    public private(set) var decoder: ChangeDecoder
    /// The newest transaction number read (whether it matched the filter or not).
    public private(set) var position: Int64

    private let options: OpenOptions
    private let filter: HistoryQuery
    private let resolveModel: (HistoryStore) throws -> ModelResolution
    /// Where the first poll starts when not after ``position`` (a date, from `--since`).
    private var pendingSince: HistoryQuery.Bound?
    /// Whether the next poll reads whatever the files say: the first (`--since` may leave transactions to read).
    private var unread = true
    private var files: StoreFileState
    /// The lowest transaction number at the last poll.
    private var firstNumber: Int64?
    /// How many transactions numbered up to ``position`` there were at the last poll (nil: not known).
    private var countThroughPosition: Int?
    /// The runs of deletes so far, to tell a burst as it happens (nil: never).
    private var deletes: DeleteBurstDetector?

    /// Starts watching `path`: after its newest transaction, or after `since`.
    /// `filter`'s names, entities, types and objects select what is reported
    /// (its bounds, limit and order are not used). `model` resolves the model
    /// of a store as opened (again when its catalog or schema change).
    /// `massDelete` says when new deletes are a burst to tell (``Event/massDelete(_:)``).
    public init(
        path: String, options: OpenOptions = OpenOptions(), filter: HistoryQuery = HistoryQuery(),
        since: HistoryQuery.Bound? = nil,
        massDelete: DeleteBurstLimits? = DeleteBurstLimits(), model: @escaping (HistoryStore) throws -> ModelResolution
    ) throws {
        self.path = path
        deletes = massDelete.map(DeleteBurstDetector.init(limits:))
        self.options = options
        var filter = filter
        filter.after = nil
        filter.before = nil
        filter.limit = nil
        filter.order = .ascending
        self.filter = filter
        resolveModel = model
        watchedPath =
            PackedReference.resolve(path).map { $0.kind == .backup ? $0.place + "/Manifest.db" : $0.place } ?? path
        guard let files = StoreFileState.read(watchedPath) else { throw StoreError.fileNotFound(path: path) }
        self.files = files
        let store = try HistoryStore.open(path, options: options)
        storeUUID = store.storeUUID
        notices = store.notices
        usesWAL = store.usesWAL
        catalog = store.catalog
        schema = store.schema
        self.model = try model(store)
        decoder = store.makeDecoder(model: self.model)
        let start = try store.snapshot { () -> (first: Int64?, position: Int64, count: Int) in
            // The filter is checked now: an unknown entity or another store's object is an error before any waiting.
            _ = try HistorySQL(store: store, query: filter)
            let range = try store.read { try HistoryStore.numberRange("ATRANSACTION", $0) }
            var position = range?.1 ?? 0
            switch since {
            case .transaction(let n)?:
                // A number past the newest is a typo or another store's: waiting would mistake its first commits for a
                // replaced store.
                guard n <= position else { throw WatchError.pastNewest(path: path, number: n, newest: range?.1) }
                position = n
            case .token(let token)?:
                guard let n = token.transactionNumber(forStore: store.storeUUID) else {
                    throw StoreQueryError(path: path, .tokenForOtherStore(token: token, storeUUID: store.storeUUID))
                }
                position = n
            case .date?: position = (range?.0 ?? 1) &- 1
            case nil: break
            }
            return (range?.0, position, try store.countTransactions(through: position))
        }
        firstNumber = start.first
        position = start.position
        countThroughPosition = start.count
        if case .date? = since { pendingSince = since }
    }

    /// Reads what happened since the last poll, calling `body` with each event
    /// in order; `body` returns false to stop (the rest is left for the next poll).
    /// Returns false when `body` stopped. Store errors are thrown (another poll may
    /// succeed: a commit or checkpoint in progress); ``WatchError`` when the store
    /// is gone or another took its place.
    @discardableResult
    public func poll(_ body: (Event) throws -> Bool) throws -> Bool {
        guard let now = StoreFileState.read(watchedPath) else { throw WatchError.deleted(path: path) }
        guard now.isSameFile(as: files) else {
            throw WatchError.replaced(path: path, reason: "another file took its place")
        }
        guard now != files || unread else { return true }
        let checkpointed = usesWAL && (now.main.size != files.main.size || now.main.modified != files.main.modified)
        // The store is open only while it is read: between polls watch holds no connection.
        let store = try reopen()
        self.store = store
        defer { self.store = nil }
        if checkpointed {
            files.main = now.main
            guard try body(.checkpoint(walBytes: now.wal?.size)) else { return false }
        }
        let finished = try readNew(store, body)
        if finished {
            files = now
            unread = false
        }
        return finished
    }

    /// Opens the store afresh (SQLite sees the files as they are now), keeping
    /// the model and decoder when its catalog and schema have not changed.
    private func reopen() throws -> HistoryStore {
        let opened = try HistoryStore.open(path, options: options)
        guard opened.storeUUID == storeUUID else {
            throw WatchError.replaced(path: path, reason: "its UUID is now \(opened.storeUUID), was \(storeUUID)")
        }
        if !opened.catalog.hasSameEntities(as: catalog) || opened.schema != schema {
            model = try resolveModel(opened)
            decoder = opened.makeDecoder(model: model)
            (catalog, schema) = (opened.catalog, opened.schema)
        }
        usesWAL = opened.usesWAL
        return opened
    }

    private struct Stopped: Error {}

    /// Reads what was committed since ``position``: first, in one short read, whether
    /// transactions were purged, then the new transactions a page at a time (see
    /// ``HistoryStore/readTransactions(_:decoder:layout:_:)``, paged), so
    /// that no read is open while `body` writes: a watch blocked on its output lets the
    /// app checkpoint.
    private func readNew(_ store: HistoryStore, _ body: (Event) throws -> Bool) throws -> Bool {
        let (range, purged) = try store.snapshot { () -> ((Int64, Int64)?, Event?) in
            let range = try store.read { try HistoryStore.numberRange("ATRANSACTION", $0) }
            if let last = range?.1, last < position {
                throw WatchError.replaced(
                    path: path, reason: "its newest transaction is #\(last), older than #\(position) read before")
            }
            // A purge deletes the oldest transactions: the first number moves up (or none is left).
            var purged: Event?
            if let oldFirst = firstNumber, oldFirst <= position, range.map({ $0.0 > oldFirst }) ?? true {
                let remaining = try store.countTransactions(through: position)
                let count = countThroughPosition.map { $0 - remaining }
                if count.map({ $0 > 0 }) ?? true {
                    purged = .purged(
                        first: oldFirst, last: min(range.map { $0.0 - 1 } ?? position, position), count: count)
                }
                countThroughPosition = remaining
            }
            return (range, purged)
        }
        if let purged { guard try body(purged) else { return false } }
        firstNumber = range?.0
        var query = filter
        query.after = pendingSince ?? .transaction(position)
        // Transactions past the newest the read above saw are left to the next poll (the files changed then).
        if let newest = range?.1, newest < .max { query.before = .transaction(newest + 1) }
        let newLast = max(range?.1 ?? position, position)
        var emitted: Int64?
        do {
            if range != nil {
                try store.readTransactions(query, decoder: decoder, layout: .pages()) {
                    try $0.forEach { tx, changes in
                        let goOn: Bool
                        do {
                            goOn = try body(.transaction(tx, changes))
                        } catch let error as StoreError {
                            // A transaction of many changes reads its later pages as it is handed out: a
                            // failure then leaves it shown in part, which another poll would repeat.
                            if case .interrupted = error { throw error }
                            throw WatchError.readFailed(path: path, transaction: tx.number, reason: "\(error)")
                        }
                        emitted = tx.number
                        if !goOn { throw Stopped() }
                    }
                }
            }
        } catch {
            // Left off after `emitted` (stopped, or the read failed): the next poll goes on from there.
            if let emitted { advance(store, to: emitted) }
            if pendingSince != nil && emitted != nil { pendingSince = nil }
            if error is Stopped { return false }
            throw error
        }
        let before = position
        advance(store, to: newLast)
        pendingSince = nil
        if var detector = deletes, newLast > before {
            let bursts = try store.newDeleteBursts(&detector, after: before, through: newLast)
            deletes = detector
            for burst in bursts { guard try body(.massDelete(burst)) else { return false } }
        }
        return true
    }

    /// Moves ``position`` to `number`, counting the transactions passed (when they cannot be counted, the
    /// count is unknown until the next purge recounts).
    private func advance(_ store: HistoryStore, to number: Int64) {
        guard number > position else { return }
        let passed = try? store.countTransactions(after: position, through: number)
        countThroughPosition = passed.flatMap { passed in countThroughPosition.map { $0 + passed } }
        position = number
    }
}
