/// What other authors wrote after CloudKit mirroring last showed itself.
public struct MirroringSilence: Equatable, Sendable {
    /// How mirroring last showed itself.
    public enum Activity: Equatable, Sendable {
        /// A transaction of its authors (`NSCloudKitMirroringDelegate.*`).
        case transaction(Int64)
        /// Its export token names this transaction.
        case exportPosition(Int64)
        /// An event in `ANSCKEVENT` (a setup, import or export).
        case event
    }

    /// Nil when nothing shows mirroring ever ran.
    public var lastActivity: Activity?
    public var lastActivityTime: Double?
    /// Transactions after it (all of history when there is none), and their span.
    public var transactionsSince: Int
    public var firstTimeSince: Double?
    public var newestTime: Double?

    /// How long history shows no mirroring while others wrote: from mirroring's last activity (or
    /// the first transaction after it) to the newest.
    public var seconds: Double? {
        guard let newest = newestTime, let from = lastActivityTime ?? firstTimeSince else { return nil }
        return max(0, newest - from)
    }
}
