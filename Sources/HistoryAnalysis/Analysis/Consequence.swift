import HistoryReading

/// An actor that deleting some transactions would break, and how.
public struct Consequence: Equatable, Sendable {
    public var actor: String
    /// An app's actor, or CloudKit's exporter.
    public var kind: ActorKind
    /// `expired` or `missed-changes`.
    public var status: ActorStatus
    public var message: String

    /// The deletion takes the transaction `actor`'s token names.
    static func expired(_ actor: ActorReport) -> Consequence {
        let n = actor.tokenNumber.map { "#\($0)" } ?? "its transaction"
        return Consequence(
            actor: actor.name, kind: actor.kind, status: .expired,
            message: actor.kind == .cloudKit
                ? """
                CloudKit's export position (transaction \(n)) would be purged: on its next export the mirror \
                finds its token expired, resets (reason: history expired) and re-uploads \(actor.everyRecord)
                """
                : """
                its token names \(n), which this purge deletes: Core Data will fail with 134301 (SwiftData with \
                SwiftDataError.historyTokenExpired)
                """
        )
    }

    /// The deletion takes `transactions` others wrote after `actor`'s position; for a
    /// position kept in whole seconds, `atMost` counts those within the second after it too.
    static func missedChanges(_ actor: ActorReport, transactions: Int, atMost: Int? = nil) -> Consequence {
        let range = atMost.map { $0 > transactions ? "\(transactions)–\($0) transactions" : nil } ?? nil
        guard let range else {
            return Consequence(
                actor: actor.name, kind: actor.kind, status: .missedChanges,
                message: actor.kind == .cloudKit
                    ? """
                    the purge deletes \(plural(transactions, "transaction")) CloudKit has not exported yet: their \
                    changes never reach iCloud
                    """
                    : """
                    the purge deletes \(plural(transactions, "transaction")) it has not merged yet; it will never \
                    see them
                    """
            )
        }
        return Consequence(
            actor: actor.name, kind: actor.kind, status: .missedChanges,
            message:
                """
                the purge deletes \(range) it may not have merged yet (its date is kept in whole seconds, so what \
                falls within the second after it may be unmerged); it would never see them
                """
        )
    }
}
