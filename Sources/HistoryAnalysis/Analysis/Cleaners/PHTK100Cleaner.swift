/// PersistentHistoryTrackingKit 1.0.0–1.0.3, automatic cleaning
/// (fatbobman/PersistentHistoryTrackingKit, tags 1.0.0 and 1.0.3,
/// `Sources/PersistentHistoryTrackingKit/TransactionTimestampManager.swift` and `Cleaner.swift`).
///
/// The batch authors are left out of the cut-off; of the others, the earliest date when all
/// have one; when only some have one, `now − 7 days` if the earliest is older than that, else
/// no purge; none dated, no purge. The 7 days are fixed: `maximumDuration` is not passed to the
/// timestamp manager before 1.0.4. The delete is an OR of `author == X` over every author,
/// batch authors included.
enum PHTK100Cleaner: CleanerRule {
    static let title = "PersistentHistoryTrackingKit 1.0.0–1.0.3"
    static let source = "fatbobman/PersistentHistoryTrackingKit 1.0.0–1.0.3, TransactionTimestampManager.swift"
    static let narrowsToActors = true
    static let notes = [
        "it cleans after each merge notification (1.0.0: only after one that fetched a transaction); "
            + "its clean strategy decides when, never the cut-off; 7 days whatever maximumDuration says"
    ]

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        commonTimestamp(input.counted(excludingBatch: true), weekAgo: input.weekAgo)
    }

    /// The rule of 1.0.0–1.0.3's `getLastCommonTransactionTimestamp` over `actors`, which the manual
    /// cleaner and fatbobman's article share.
    static func commonTimestamp(_ actors: [CleanerInput.Actor], weekAgo: Double) -> CleanerDecision {
        guard let earliest = CleanerInput.earliest(actors) else { return .none("no actor has a date: no purge") }
        let undated = CleanerInput.undated(actors)
        if undated.isEmpty {
            return CleanerDecision(
                cutoff: earliest.date, reason: "every actor has a date: the earliest", heldBackBy: earliest.name)
        }
        if earliest.date < weekAgo {
            return CleanerDecision(
                cutoff: weekAgo,
                reason: "\(undated) without a date and the earliest date is older than 7 days: now − 7 days")
        }
        return .none("\(undated) without a date and the earliest date is within 7 days: no purge")
    }
}
