import HistoryAnalysis
import HistoryReading

/// `recover`'s use case: what the saves still in the store's `-wal` hold that the store no
/// longer does: transactions a purge removed, objects deleted with their values, and what
/// could not be read back.
public struct Recovery {
    /// The saves it read.
    public var log: SaveLog
    public var transactions: [SaveRecovery.Transaction]
    public var objects: [SaveRecovery.DeletedObject]
    public var unreadable: [SaveRecovery.Unreadable]

    /// Reads it from `store`'s saves, decoding with the model at `modelPath` instead of the
    /// store's cache when given.
    public static func read(_ store: HistoryStore, modelPath: String?) throws -> Recovery {
        var recovery = Recovery(log: try SaveLog.read(store), transactions: [], objects: [], unreadable: [])
        try SaveRecovery.run(
            store, log: recovery.log, userModel: modelPath, transaction: { recovery.transactions.append($0) },
            object: { recovery.objects.append($0) }, unreadable: { recovery.unreadable.append($0) })
        return recovery
    }
}
