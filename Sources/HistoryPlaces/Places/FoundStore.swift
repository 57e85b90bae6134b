import Foundation

/// A history store found by ``StoreFinder``.
public struct FoundStore: Equatable, Sendable {
    /// What every command takes in place of a store's path.
    public var name: String
    public var fileName: String
    public var surroundings: StoreSurroundings
    /// Bytes of the main file and of its `-wal` (nil without one).
    public var size: Int64
    public var walSize: Int64?
    public var glance: StoreGlance
    public var health: StoreHealth

    /// The newest transaction's time, for ordering (Cocoa seconds).
    public var newest: Double? { glance.timestamps?.upperBound }
}

/// A listing's one-word judgement of a store, from what costs no table scan.
public enum StoreHealth: String, Sendable, CaseIterable {
    /// History tables with no transaction in them.
    case empty
    /// The `-wal` is larger than the main file (and over 4 MiB): checkpoints are held back.
    case bigWAL = "big-wal"
    /// Never purged, and its oldest transaction is more than 30 days older than its newest:
    /// nothing cleans this history.
    case growing
    /// None of the above.
    case ok

    static func judge(_ glance: StoreGlance, size: Int64, walSize: Int64?) -> StoreHealth {
        if glance.transactionCount == 0 { return .empty }
        if let wal = walSize, wal > size, wal > 4 << 20 { return .bigWAL }
        if !glance.wasPurged, let span = glance.timestamps, span.upperBound - span.lowerBound > 30 * 86_400 {
            return .growing
        }
        return .ok
    }
}

/// Something found on the way that is not a history store a user would open: said apart.
public struct PlaceProblem: Equatable, Sendable {
    public var name: String
    public var problem: String
}

/// What ``StoreFinder/find(in:zipsInFolders:progress:)`` found.
public struct StoreListing: Equatable, Sendable {
    /// Newest activity first.
    public var stores: [FoundStore]
    public var problems: [PlaceProblem]
    /// Files looked at (their names or their first bytes).
    public var filesExamined: Int
}
