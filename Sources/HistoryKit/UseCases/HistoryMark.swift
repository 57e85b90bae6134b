import HistoryAnalysis
import HistoryReading

/// A point in a store's history, to read what was written after it: a test marks the store,
/// runs the app's code, and reads each transaction saved since, with its changes and, while the
/// store's `-wal` holds those saves, each changed object's values before and after.
public struct HistoryMark: Sendable {
    /// The store.
    public let store: String
    /// The store's newest transaction when the mark was taken (0: it had none).
    public let transactionNumber: Int64

    /// A mark of `store` as it is now: what is written after this is what ``written(modelPath:)`` reads.
    public init(_ store: String) throws {
        let opened = try HistoryStore.open(store)
        defer { opened.close() }
        self.store = store
        transactionNumber = try opened.numberBounds().transaction
    }

    /// Every transaction written since the mark, oldest first, each change decoded with the
    /// store's cached model (or the model at `modelPath`) and given its values where the files
    /// hold them (``SaveValues``), or why they do not.
    public func written(modelPath: String? = nil) throws -> [WrittenTransaction] {
        let opened = try HistoryStore.open(store)
        defer { opened.close() }
        let model = try opened.resolveModel(userModelPath: modelPath)
        let values = try SaveValues(opened, model: model.model)
        var written: [WrittenTransaction] = []
        try opened.readTransactions(
            HistoryQuery(after: .transaction(transactionNumber)), decoder: opened.makeDecoder(model: model),
            layout: .oneRead
        ) { chunk in
            try chunk.forEach { transaction, changes in
                var noted: [WrittenChange] = []
                try changes.forEach { change in
                    let found = try values.values(change)
                    noted.append(
                        WrittenChange(
                            change: change, values: found, valuesMissing: found == nil ? values.whyMissing(change) : nil
                        ))
                }
                written.append(WrittenTransaction(transaction: transaction, changes: noted))
            }
        }
        return written
    }
}

/// A transaction written since a ``HistoryMark``: who saved it, and its changes.
public struct WrittenTransaction: Sendable {
    /// Its number, time, author, context name, bundle ID and process.
    public var transaction: Transaction
    public var changes: [WrittenChange]
}

/// One change of a ``WrittenTransaction``: the object, what kind of change, the updated
/// properties or the tombstone, and the object's values before and after.
public struct WrittenChange: Sendable {
    public var change: Change
    /// The values before and after the save; nil when the files do not hold them.
    public var values: SaveValues.Values?
    /// Why ``values`` is nil.
    public var valuesMissing: String?

    /// The value of attribute `property` before the save; nil when it was NULL or is not held.
    public func value(before property: String) -> StoredValue? { Self.value(property, in: values?.before) }
    /// The value of attribute `property` after the save; nil when it is NULL or not held.
    public func value(after property: String) -> StoredValue? { Self.value(property, in: values?.after) }

    private static func value(_ property: String, in side: [PropertyValue]?) -> StoredValue? {
        switch side?.first(where: { $0.name == property })?.content {
        case .attribute(_, let value)?, .column(let value)?: return value
        default: return nil
        }
    }
}
