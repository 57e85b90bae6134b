import HistoryAnalysis
import HistoryReading

/// What a listing of a store's saves is asked: whether to check the `ZCOLUMNS` slot layout
/// against what each update really changed, and with which model.
public struct SaveListingRequest: Sendable {
    /// Also check the slot layout (``SlotCheck``).
    public var checkSlots: Bool
    /// The model to decode with instead of the store's cache (for the slot check).
    public var modelPath: String?

    public init(checkSlots: Bool, modelPath: String?) {
        self.checkSlots = checkSlots
        self.modelPath = modelPath
    }
}

/// `saves`' use case: the saves still in the store's `-wal` (``SaveLog``, read one save at a
/// time through ``SaveLog/forEachSave(_:)``) and, when asked, the slot layout checked against them.
public struct SaveListing {
    public var log: SaveLog
    public var slots: SlotCheck?

    public static func read(_ store: HistoryStore, _ request: SaveListingRequest) throws -> SaveListing {
        let log = try SaveLog.read(store)
        guard request.checkSlots else { return SaveListing(log: log, slots: nil) }
        let resolution = try store.resolveModel(userModelPath: request.modelPath)
        let slots = try SlotCheck.run(
            try SaveValues(store, model: resolution.model), decoder: store.makeDecoder(model: resolution))
        return SaveListing(log: log, slots: slots)
    }
}
