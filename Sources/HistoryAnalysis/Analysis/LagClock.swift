import HistoryReading

/// What an actor's lag (how long its oldest pending transaction has waited) is measured to. A
/// copy of a store is judged by its own time, however long ago it was copied: the wall clock
/// counts only when the user gives a time, or when the store is live.
public enum LagClock: String, Equatable, Sendable {
    /// The store's newest transaction.
    case newestTransaction = "newest-transaction"
    /// The time the user gave (`--now`).
    case given
    /// The current time: another process has the store open and is writing it.
    case wallClock = "wall-clock"

    /// How far behind an actor is, as ``MergeStateReport/behind(_:)`` measures it: "its position lies
    /// 3 days before the newest transaction", or by a clock "the oldest 3 days old".
    public func behind(_ seconds: Double) -> String {
        switch self {
        case .newestTransaction: return "its position lies \(Self.length(seconds)) before the newest transaction"
        case .given, .wallClock: return "the oldest \(Self.length(seconds)) old"
        }
    }

    /// How far behind an actor with `pending` transactions to merge is, in seconds: by the store's
    /// own time, how long before the newest transaction its position lies (`positionAge`); by a
    /// clock, how long the oldest of them has waited (`lag`). Nil with nothing to merge.
    public func behind(pending: Int, positionAge: Double?, lag: Double?) -> Double? {
        guard pending > 0 else { return nil }
        return self == .newestTransaction ? positionAge ?? lag : lag
    }

    /// "under a second", "12 seconds", "3 days".
    static func length(_ seconds: Double) -> String { seconds < 1 ? "under a second" : span(seconds) }

    /// Which clock decides: a time the user gave, else the wall clock while another process has
    /// the store open, else the store's newest transaction (the wall clock when it has none).
    static func of(nowIsGiven: Bool, isLive: Bool, newest: Double?) -> LagClock {
        if nowIsGiven { return .given }
        return isLive || newest == nil ? .wallClock : .newestTransaction
    }
}
