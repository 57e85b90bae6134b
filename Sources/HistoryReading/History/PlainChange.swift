/// A change row that decodes without a warning (an insert, or an update whose
/// ZCOLUMNS fits its entity's layout), read in place: what an export formats at
/// once, without building a ``Change`` (its arrays and strings, per change).
/// Valid only inside the call that hands it out.
public struct PlainChange {
    public let changeID: Int64
    public let transactionNumber: Int64
    /// True for an update, false for an insert.
    public let isUpdate: Bool
    /// Not retained: the decoder that owns it outlives the call that hands this out.
    public unowned(unsafe) let entity: DecodedEntity
    /// `entity.index`, kept here: a writer's per-entity data is found without touching the entity.
    public let entityIndex: Int
    public let entityPK: Int64
    /// ZCOLUMNS in place (nil for NULL). An update's is as long as its entity's layout
    /// says, with no bit past the last slot.
    public let columns: UnsafeRawBufferPointer?

    public var changeType: ChangeType { isUpdate ? .update : .insert }

    /// Calls `body` with each slot the update sets, from the first (an insert sets none).
    @inlinable public func forEachUpdatedSlot(_ body: (Int) throws -> Void) rethrows {
        guard isUpdate, let columns else { return }
        try ChangeDecoder.forEachSetSlot(in: columns, body)
    }

    /// The same change decoded: equal to what ``ChangeDecoder``'s `decode` gives for its row.
    public var change: Change {
        var slots: [Int]?
        var names: [String]?
        if isUpdate {
            var set: [Int] = []
            forEachUpdatedSlot { set.append($0) }
            slots = set
            names = entity.layout?.propertyNames(forSlots: set)
        }
        return Change(
            changeID: changeID, transactionNumber: transactionNumber, changeType: changeType,
            entityNumber: entity.number, entityName: entity.name, entityPK: entityPK,
            changedObjectID: entity.objectIDPrefix + String(entityPK), updatedSlots: slots,
            updatedProperties: names, rawColumns: columns.map { [UInt8]($0) }, tombstone: [], warnings: [])
    }
}
