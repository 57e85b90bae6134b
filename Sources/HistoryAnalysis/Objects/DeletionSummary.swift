/// How many objects of each entity history shows gone: deleted by a recorded delete, and gone
/// without one (``DeletedObject/list(in:entities:includeSubentities:perEntity:limit:decoder:summary:_:)``).
public struct DeletionSummary: Sendable {
    public struct Entity: Sendable {
        public var name: String
        public var number: Int64
        /// Objects deleted by a recorded delete.
        public var deleted = 0
        /// Of ``deleted``, the deletes whose tombstone holds at least one value.
        public var withTombstoneValues = 0
        /// Objects history shows whose rows are gone and that no delete names.
        public var goneWithoutDelete = 0
        /// The first and the last transaction that deleted one of them (nil: no recorded delete).
        public var firstDelete: Int64?
        public var lastDelete: Int64?
    }

    /// By name; only entities with an object deleted or gone.
    public var entities: [Entity]

    public var deleted: Int { entities.reduce(0) { $0 + $1.deleted } }
    public var goneWithoutDelete: Int { entities.reduce(0) { $0 + $1.goneWithoutDelete } }
}
