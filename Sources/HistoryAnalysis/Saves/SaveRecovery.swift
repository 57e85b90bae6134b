import HistoryReading

/// What the saves of a store's `-wal` hold that the store no longer does: the history
/// transactions a later save removed (a purge run while the log held them), decoded as live ones
/// from the store as it was before that save; and the objects a save deleted, with every value
/// their rows had before it. Frames of an earlier generation of the log are not part of any
/// save: what they hold is only listed (``SaveLog/olderGenerations``).
public struct SaveRecovery {
    /// A transaction a save removed.
    public struct Transaction: Sendable {
        public var transaction: HistoryReading.Transaction
        public var changes: [Change]
        /// The save that removed it; it is read as the store was after the save before.
        public var removedBy: Int
        public var readAt: Int { removedBy - 1 }
        /// Why the states around that save may not be the ones SQLite wrote (``SaveSummary/why``);
        /// nil when both are exact.
        public var inexact: String?
    }

    /// An object a save deleted.
    public struct DeletedObject: Sendable {
        public var object: ObjectReference
        /// The save that deleted its row.
        public var deletedBy: Int
        /// The history transactions that save added (the delete's, when history recorded it).
        public var transactionNumbers: [Int64]
        /// Its row before the save; nil when it cannot be read there.
        public var state: ObjectState?
        /// Why the states around that save may not be the ones SQLite wrote; nil when both are exact.
        public var inexact: String?
        /// When it was deleted: the time of the first of those transactions (Cocoa seconds); nil
        /// when history recorded none, or it is no longer in the store.
        public var deletedAt: Double? = nil
    }

    /// What a save removed that cannot be read: the store as it was before it is partial (a
    /// checkpoint overwrote pages it reads), and SQLite cannot read it as one database.
    public struct Unreadable: Sendable {
        public var save: Int
        public var transactionsRemoved: Int
        public var objectsDeleted: Int
        /// Why that state is partial, and what SQLite found.
        public var why: String
    }

    /// Calls `transaction` with each transaction a save removed and `object` with each object a
    /// save deleted, in the order of the saves; what the store still holds (a later save put it
    /// back) is left out. `model` is the user's model, when given (else each state's cache). A
    /// save whose earlier state is partial and unreadable goes to `unreadable`, and the others
    /// are read still.
    public static func run(
        _ store: HistoryStore, log: SaveLog, userModel: String?,
        transaction: (Transaction) throws -> Void, object: (DeletedObject) throws -> Void,
        unreadable: (Unreadable) throws -> Void = { _ in }
    ) throws {
        var summaries: [SaveSummary] = []
        try log.forEachSave { summaries.append($0) }
        for summary in summaries where !summary.read.transactionsRemoved.isEmpty || !summary.read.deletedObjects.isEmpty
        {
            // The state before the save, and the removed transactions read there.
            let read:
                (store: HistoryStore, resolution: ModelResolution, found: [(HistoryReading.Transaction, [Change])])
            do {
                read = try readBefore(summary, path: store.path, userModel: userModel)
            } catch {
                // An exact state that does not read is a problem of the files; a partial one may well not be
                // one database. Anything else (a lock, Ctrl-C, a model that does not load) stops the command.
                guard let partial = log.exactness.reason(ofState: summary.commit.number - 1),
                    (error as? StoreError)?.isDamage == true
                else { throw error }
                try unreadable(
                    Unreadable(
                        save: summary.commit.number, transactionsRemoved: summary.read.transactionsRemoved.count,
                        objectsDeleted: summary.read.deletedObjects.count,
                        why: "\(partial), so that SQLite cannot read it as one database"))
                continue
            }
            let before = read.store
            defer { before.close() }
            for (tx, changes) in read.found where try store.transaction(number: tx.number) == nil {
                try transaction(
                    Transaction(
                        transaction: tx, changes: changes, removedBy: summary.commit.number, inexact: summary.why))
            }
            // The delete's time, once per save: the first transaction it added.
            let deletedAt = try summary.read.transactionsAdded.first.flatMap {
                try store.transaction(number: $0)?.timestamp
            }
            for reference in summary.read.deletedObjects {
                if case .found? = try? ObjectLookup.find(reference, in: store, model: nil) { continue }
                var state: ObjectState?
                if case .found(let found)? = try? ObjectLookup.find(reference, in: before, model: read.resolution.model)
                {
                    state = found
                }
                try object(
                    DeletedObject(
                        object: reference, deletedBy: summary.commit.number,
                        transactionNumbers: summary.read.transactionsAdded,
                        state: state, inexact: summary.why, deletedAt: deletedAt))
            }
        }
    }

    /// The store as it was before the save of `summary`, its model, and the transactions the save removed, read there.
    private static func readBefore(_ summary: SaveSummary, path: String, userModel: String?) throws
        -> (store: HistoryStore, resolution: ModelResolution, found: [(HistoryReading.Transaction, [Change])])
    {
        let before = try HistoryStore.open(path, options: OpenOptions(atSave: summary.commit.number - 1))
        do {
            let resolution = try before.resolveModel(userModelPath: userModel)
            let removed = Set(summary.read.transactionsRemoved)
            var found: [(HistoryReading.Transaction, [Change])] = []
            if let low = summary.read.transactionsRemoved.first, let high = summary.read.transactionsRemoved.last,
                low <= high
            {
                let decoder = before.makeDecoder(model: resolution)
                let bounds = HistoryQuery.Bound.around(low...high)
                try before.readTransactions(
                    HistoryQuery(after: bounds.after, before: bounds.before), decoder: decoder, layout: .oneRead
                ) {
                    try $0.forEach { tx, changes in
                        guard removed.contains(tx.number) else { return }
                        var list: [Change] = []
                        try changes.forEach { list.append($0) }
                        found.append((tx, list))
                    }
                }
            }
            return (before, resolution, found)
        } catch {
            before.close()
            throw error
        }
    }
}

extension SaveRecovery {
    /// Where a history transaction the store no longer holds can still be read.
    public struct Removal: Equatable, Sendable {
        /// The save that removed it.
        public var removedBy: Int
        /// The save after which the store still has it (0: the main file alone, before the first save);
        /// nil when it cannot be read there (a partial state).
        public var heldAfter: Int?
    }

    /// The last save of `log`, through save `last` (nil: every save), that removed transaction `number`,
    /// and whether the store as it was after the save before still has it; nil when no save removed it.
    public static func removal(
        ofTransaction number: Int64, in store: HistoryStore, log: SaveLog,
        through last: Int? = nil
    ) throws -> Removal? {
        var removedBy: Int?
        do {
            try log.forEachSave { summary in
                if let last, summary.commit.number > last { throw EndOfSaves() }
                if summary.read.transactionsRemoved.contains(number) { removedBy = summary.commit.number }
                // Written again after it was removed (a number reused by a later save): not that one.
                if summary.read.transactionsAdded.contains(number) { removedBy = nil }
            }
        } catch is EndOfSaves {}
        guard let removedBy else { return nil }
        let before = try? HistoryStore.open(store.path, options: OpenOptions(atSave: removedBy - 1))
        defer { before?.close() }
        let held = (try? before?.transaction(number: number)) != nil
        return Removal(removedBy: removedBy, heldAfter: held ? removedBy - 1 : nil)
    }

    /// The first save after save `after` that adds transaction `number`; nil when none does.
    public static func addition(ofTransaction number: Int64, log: SaveLog, after: Int) throws -> Int? {
        var adds: Int?
        do {
            try log.forEachSave { summary in
                guard summary.commit.number > after, summary.read.transactionsAdded.contains(number) else { return }
                adds = summary.commit.number
                throw EndOfSaves()
            }
        } catch is EndOfSaves {}
        return adds
    }

    /// Ends the walk through the saves early.
    private struct EndOfSaves: Error {}
}
