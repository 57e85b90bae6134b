/// When history recorded deletes: how many, and the first and last transaction's time and number.
public struct DeleteSpan: Equatable, Sendable {
    public var deletes: Int
    /// Cocoa seconds; nil when no timestamp is a number.
    public var first: Double?
    public var last: Double?
    public var firstTransaction: Int64
    public var lastTransaction: Int64
}
