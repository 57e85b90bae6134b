/// What the saves of a store's `-wal` hold that the store no longer does: the history
/// transactions a later save removed (a purge run while the log held them), decoded as live ones
/// from the store as it was before that save; and the objects a save deleted, with every value
/// their rows had before it. Frames of an earlier generation of the log are not part of any
/// save: what they hold is only listed (``SaveLog/olderGenerations``).
public struct SaveRecovery {
    /// A transaction a save removed.
    public struct Transaction: Sendable {
        public var transaction: HistoryKit.Transaction
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
    }

    /// Calls `transaction` with each transaction a save removed and `object` with each object a
    /// save deleted, in the order of the saves; what the store still holds (a later save put it
    /// back) is left out. `model` is the user's model, when given (else each state's cache).
    public static func run(_ store: HistoryStore, log: SaveLog, userModel: String?,
                           transaction: (Transaction) throws -> Void, object: (DeletedObject) throws -> Void) throws {
        var summaries: [SaveSummary] = []
        try log.forEachSave { summaries.append($0) }
        for summary in summaries where !summary.transactionsRemoved.isEmpty || !summary.deletedObjects.isEmpty {
            let before = try HistoryStore.open(store.path, options: OpenOptions(atSave: summary.commit.number - 1))
            defer { before.close() }
            let resolution = try before.resolveModel(userModelPath: userModel)
            let removed = Set(summary.transactionsRemoved)
            if let low = summary.transactionsRemoved.first, let high = summary.transactionsRemoved.last, low <= high {
                let decoder = before.makeDecoder(model: resolution)
                var found: [(HistoryKit.Transaction, [Change])] = []
                let bounds = HistoryQuery.Bound.around(low...high)
                try before.forEachTransactionWithChanges(HistoryQuery(after: bounds.after, before: bounds.before), decoder: decoder) { tx, changes in
                    guard removed.contains(tx.number) else { return }
                    var list: [Change] = []
                    try changes.forEach { list.append($0) }
                    found.append((tx, list))
                }
                for (tx, changes) in found where try store.transaction(number: tx.number) == nil {
                    try transaction(Transaction(transaction: tx, changes: changes, removedBy: summary.commit.number, inexact: summary.why))
                }
            }
            for reference in summary.deletedObjects {
                if case .found? = try? store.objectState(reference, model: nil) { continue }
                var state: ObjectState?
                if case .found(let found)? = try? before.objectState(reference, model: resolution.model) { state = found }
                try object(DeletedObject(object: reference, deletedBy: summary.commit.number, transactionNumbers: summary.transactionsAdded,
                                         state: state, inexact: summary.why))
            }
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
    public static func removal(ofTransaction number: Int64, in store: HistoryStore, log: SaveLog,
                               through last: Int? = nil) throws -> Removal? {
        var removedBy: Int?
        do {
            try log.forEachSave { summary in
                if let last, summary.commit.number > last { throw EndOfSaves() }
                if summary.transactionsRemoved.contains(number) { removedBy = summary.commit.number }
                // Written again after it was removed (a number reused by a later save): not that one.
                if summary.transactionsAdded.contains(number) { removedBy = nil }
            }
        } catch is EndOfSaves {}
        guard let removedBy else { return nil }
        let before = try? HistoryStore.open(store.path, options: OpenOptions(atSave: removedBy - 1))
        defer { before?.close() }
        let held = (try? before?.transaction(number: number)) != nil
        return Removal(removedBy: removedBy, heldAfter: held ? removedBy - 1 : nil)
    }

    /// Ends the walk through the saves early.
    private struct EndOfSaves: Error {}
}
