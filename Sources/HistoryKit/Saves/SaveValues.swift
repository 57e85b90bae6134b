/// The values of the objects a change touched, before and after it, for the history
/// transactions inside the `-wal`'s window: each such transaction was added by one save, and
/// the store as it was before that save and after it (``OpenOptions/atSave``) holds the object's
/// row on each side. Outside the window the values are not in the files, and none is given.
public final class SaveValues {
    /// What a change's object held before and after the save that made it.
    public struct Values: Sendable {
        /// The save that made the change.
        public var save: Int
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
    private let saveCount: Int
    /// The stores opened at a save, the last few (a change's two sides are consecutive saves).
    private var opened: [(save: Int, store: HistoryStore, naming: ModelColumns?)] = []

    /// The window of `store`'s `-wal` (none when it has no `-wal` or no save); `model` names properties.
    public init(_ store: HistoryStore, model: ManagedObjectModel?) throws {
        self.store = store
        self.model = model
        var map: [Int64: Int] = [:]
        var count = 0
        if store.files.walSize != nil, let log = try? SaveLog.read(store) {
            count = log.log.commits.count
            try log.forEachSave { summary in
                for number in summary.transactionsAdded { map[number] = summary.commit.number }
            }
        }
        saveOfTransaction = map
        saveCount = count
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
            guard case .found(let state) = try at.store.objectState(object, model: model, naming: at.naming) else { return nil }
            guard change.changeType == .update, let names = change.updatedProperties else { return state.properties }
            return state.properties.filter { names.contains($0.name) }
        }
        let before = change.changeType == .insert ? nil : try properties(at: save - 1)
        let after = change.changeType == .delete ? nil : try properties(at: save)
        return Values(save: save, before: before, after: after)
    }

    /// Every property of `change`'s object before and after the save that made it; nil outside
    /// the window, or when the object has no row on a side.
    public func rows(_ change: Change) throws -> (before: [PropertyValue], after: [PropertyValue])? {
        guard let save = saveOfTransaction[change.transactionNumber], let entity = change.entityName else { return nil }
        let object = ObjectReference(entityName: entity, primaryKey: change.entityPK)
        let old = try opened(at: save - 1), new = try opened(at: save)
        guard case .found(let before) = try old.store.objectState(object, model: model, naming: old.naming),
              case .found(let after) = try new.store.objectState(object, model: model, naming: new.naming) else { return nil }
        return (before.properties, after.properties)
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
