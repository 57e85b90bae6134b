/// PersistentHistoryTrackingKit 1.0.4–1.3.x, automatic cleaning and the manual cleaner
/// (fatbobman/PersistentHistoryTrackingKit, tags 1.0.4 and 1.3.0,
/// `Sources/PersistentHistoryTrackingKit/TransactionTimestampManager.swift` and `Cleaner.swift`).
///
/// The earliest date among the authors that have one, batch authors left out; none dated,
/// `now − maximumDuration` (the retention, 7 days by default). The delete is an OR of
/// `author == X` over every author, batch authors included; with no author the OR is empty and
/// deletes nothing.
enum PHTK104Cleaner: CleanerRule {
    static let title = "PersistentHistoryTrackingKit 1.0.4–1.3.x"
    static let source = "fatbobman/PersistentHistoryTrackingKit 1.0.4–1.3.0, TransactionTimestampManager.swift"
    static let narrowsToActors = true
    static let notes = [
        "it cleans after each merge notification (from 1.0.8 only after one that fetched a transaction); "
            + "its clean strategy decides when, never the cut-off"
    ]

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        guard let earliest = CleanerInput.earliest(input.counted(excludingBatch: true)) else {
            return CleanerDecision(
                cutoff: input.retentionAgo,
                reason: "no actor has a date: now − \(input.settings.retentionText) (maximumDuration)")
        }
        return CleanerDecision(
            cutoff: earliest.date, reason: "the earliest date among actors that have one", heldBackBy: earliest.name)
    }
}
