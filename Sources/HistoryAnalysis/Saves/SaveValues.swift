import HistoryReading

/// The values of the objects a change touched, before and after it, for the history
/// transactions inside the `-wal`'s window: each such transaction was added by one save, and
/// the store as it was before that save and after it (``OpenOptions/atSave``) holds the object's
/// row on each side. Outside the window the values are not in the files, and none is given.
public final class SaveValues {
    /// What a change's object held before and after the save that made it.
    public struct Values: Sendable {
        /// The save that made the change: its values before are read from the store as it was
        /// after save `save - 1` (0: the main file alone), after from the store after `save`.
        public var save: Int
        /// Why the store before or after that save cannot be rebuilt exactly, so that a value
        /// read from it may be a later save's (``SaveExactness``); nil when both are exact.
        public var why: String?
        /// Whether both sides are read from exact states.
        public var exact: Bool { why == nil }
        /// The properties shown: those an update touched; every one for an insert (after) and a
        /// delete (before). Nil on a side where the object had no row.
        public var before: [PropertyValue]?
        public var after: [PropertyValue]?
    }

    public let store: HistoryStore
    /// The model properties are named with.
    public let model: ManagedObjectModel?
    /// The save that added each transaction of the window.
    private let saveOfTransaction: [Int64: Int]
    /// The log's saves and their exactness; nil when the store has no log of saves.
    private let log: SaveLog?
    /// The transaction the first save that added one added (nil: no save added one).
    private let firstSavedTransaction: (number: Int64, save: Int)?
    /// The stores opened at a save, the last few (a change's two sides are consecutive saves).
    private var opened: [(save: Int, store: HistoryStore, naming: ModelColumns?)] = []

    /// The window of `store`'s `-wal` (none when it has no `-wal` or no save); `model` names properties.
    public init(_ store: HistoryStore, model: ManagedObjectModel?) throws {
        self.store = store
        self.model = model
        var map: [Int64: Int] = [:]
        var first: (number: Int64, save: Int)?
        let log = store.files.walSize != nil ? try? SaveLog.read(store) : nil
        try log?.forEachSave { summary in
            for number in summary.read.transactionsAdded {
                map[number] = summary.commit.number
                if first == nil { first = (number, summary.commit.number) }
            }
        }
        saveOfTransaction = map
        self.log = log
        firstSavedTransaction = first
    }

    /// The transactions whose values the files hold, lowest and highest (nil: none).
    public var window: ClosedRange<Int64>? {
        guard let low = saveOfTransaction.keys.min(), let high = saveOfTransaction.keys.max() else { return nil }
        return low...high
    }

    /// The values before and after `change`; nil when its transaction is outside the window.
    public func values(_ change: Change) throws -> Values? {
        guard let save = saveOfTransaction[change.transactionNumber], let entity = change.entityName else { return nil }
        let object = ObjectReference(entityName: entity, primaryKey: change.entityPK)
        func properties(at save: Int) throws -> [PropertyValue]? {
            let at = try opened(at: save)
            guard case .found(let state) = try ObjectLookup.find(object, in: at.store, model: model, naming: at.naming)
            else {
                return nil
            }
            guard change.changeType == .update, let names = change.updatedProperties else { return state.properties }
            return state.properties.filter { names.contains($0.name) }
        }
        let before = change.changeType == .insert ? nil : try properties(at: save - 1)
        let after = change.changeType == .delete ? nil : try properties(at: save)
        return Values(save: save, why: log?.reason(ofSave: save), before: before, after: after)
    }

    /// Why the files hold no values for `change` (its transaction is outside the window).
    public func whyMissing(_ change: Change) -> String {
        guard let log, !log.log.commits.isEmpty else {
            return store.files.walSize == nil
                ? "the store has no -wal: values before and after a change are kept only while its save is in the -wal"
                : "the -wal holds no save: values before and after a change are kept only while its save is in the -wal"
        }
        guard let first = firstSavedTransaction else {
            return
                """
                no save in the -wal adds a history transaction: #\(change.transactionNumber) was saved before the \
                log began, so 
                """
                    + "the values it wrote are not in the files"
        }
        guard change.transactionNumber < first.number else {
            return
                """
                no save in the -wal added #\(change.transactionNumber), so no state before and after it is in the \
                files
                """
        }
        // The log was reset after a checkpoint (its sequence counts resets; frames of an earlier
        // generation may remain): the save was in frames a checkpoint copied before the reset.
        let reset = log.log.header.checkpointSequence > 0 || !log.log.olderGenerations.isEmpty
        return
            """
            #\(change.transactionNumber) is older than the first transaction a save of the -wal adds \
            (#\(first.number), by save 
            """
                + "\(first.save)): it was saved "
                + (reset
                    ? "in frames a checkpoint copied into the main file before the log was reset"
                    : "before the log began") + ", so the values it wrote are not in the files"
    }

    /// Every property of `change`'s object before and after the save that made it, with the
    /// object's table and why either side is not exact; nil outside the window, or when the object
    /// has no row on a side.
    public func rows(_ change: Change) throws -> (
        table: String, before: [PropertyValue], after: [PropertyValue], why: String?
    )? {
        guard let save = saveOfTransaction[change.transactionNumber], let entity = change.entityName else { return nil }
        let object = ObjectReference(entityName: entity, primaryKey: change.entityPK)
        let old = try opened(at: save - 1)
        let new = try opened(at: save)
        guard case .found(let before) = try ObjectLookup.find(object, in: old.store, model: model, naming: old.naming),
            case .found(let after) = try ObjectLookup.find(object, in: new.store, model: model, naming: new.naming)
        else { return nil }
        return (after.table, before.properties, after.properties, log?.reason(ofSave: save))
    }

    /// The store as it was after save `save` (0: before the first, the main file alone), with
    /// its model's columns named once.
    private func opened(at save: Int) throws -> (store: HistoryStore, naming: ModelColumns?) {
        if let found = opened.first(where: { $0.save == save }) { return (found.store, found.naming) }
        let store = try HistoryStore.open(self.store.path, options: OpenOptions(busyTimeout: 2, atSave: save))
        let naming = model.map { ModelColumns($0, catalog: store.catalog) }
        opened.append((save, store, naming))
        if opened.count > 4 { opened.removeFirst().store.close() }
        return (store, naming)
    }

    deinit {
        for entry in opened { entry.store.close() }
    }
}
