/// One entity of a store's catalog as ``ChangeDecoder`` decodes its changes: a class,
/// so that looking an entity up per change retains one object, not each of its
/// strings and arrays.
public final class DecodedEntity: Sendable {
    /// `Z_ENT`.
    public let number: Int64
    /// Its place among ``ChangeDecoder/entities`` (0 up): an index for a caller's own per-entity data.
    public let index: Int
    public let name: String
    /// `x-coredata://<store UUID>/<name>/p`: an object ID is this and the object's `Z_PK`.
    public let objectIDPrefix: String
    /// The entity's slot layout; nil without a model or when the model lacks the entity.
    public let layout: SlotLayout?
    /// Why there is no layout (no model, or the entity is not in it).
    let missingLayout: DecodingWarning?
    /// The model's type of each tombstone attribute, in tombstone column order.
    let tombstoneTypes: [AttributeType?]
    /// Whether an update's ZCOLUMNS decodes without a warning when it is
    /// ``layout``'s length with no bit past its last slot (there is a layout, and it is certain).
    private let updatesDecodePlainly: Bool
    /// ``layout``'s byte length and slot count: what ``decodesPlainly(update:)`` checks per
    /// change, kept here so that no layout (its arrays) is copied per change.
    private let byteLength: Int
    private let slotCount: Int

    init(
        number: Int64, index: Int, name: String, objectIDPrefix: String, layout: SlotLayout?,
        missingLayout: DecodingWarning?, tombstoneTypes: [AttributeType?]
    ) {
        self.number = number
        self.index = index
        self.name = name
        self.objectIDPrefix = objectIDPrefix
        self.layout = layout
        self.missingLayout = missingLayout
        self.tombstoneTypes = tombstoneTypes
        updatesDecodePlainly = layout.map { $0.notes.isEmpty && $0.byteLength > 0 } ?? false
        byteLength = layout?.byteLength ?? 0
        slotCount = layout?.slots.count ?? 0
    }

    /// Whether an update of this entity with ZCOLUMNS `columns` decodes without a warning
    /// (``updatesDecodePlainly``, and the columns fit the layout: ``SlotLayout/fits(length:lastByte:)``).
    func decodesPlainly(update columns: UnsafeRawBufferPointer?) -> Bool {
        guard updatesDecodePlainly, let columns else { return false }
        return SlotLayout.fits(
            length: columns.count, lastByte: columns.last, byteLength: byteLength, slotCount: slotCount)
    }
}
