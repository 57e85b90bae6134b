/// The save a store was opened at (``OpenOptions/atSave``): which of the saves its `-wal`
/// holds, how much of the log that is, and whether the store as it was then can be rebuilt
/// exactly (``SaveExactness``).
public struct SavePoint: Equatable, Sendable {
    /// The save, from 1 (0: the main file as it was before the first).
    public var save: Int
    /// The saves the `-wal` holds.
    public var of: Int
    /// Why the store as it was after the save cannot be rebuilt exactly; nil when it can.
    public var why: String?
    /// The bytes of the `-wal` read: its header and the frames through the save's commit.
    public var walBytes: Int64

    public var exact: Bool { why == nil }
}
