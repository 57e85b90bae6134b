/// PersistentHistoryTrackingKit 2.x, automatic cleaning (fatbobman/PersistentHistoryTrackingKit,
/// tags 2.0.0 and 2.0.5, `Sources/PersistentHistoryTrackingKit/TransactionTimestampManager.swift`
/// and `TransactionProcessorActor.swift`).
///
/// Every author but the batch authors must have a date, else no purge; then the earliest.
/// `maximumDuration` is kept but unused (`_ = maximumDuration`). The delete is narrowed to every
/// author, batch authors included. Its default clean strategy is `.none`.
enum PHTK2Cleaner: CleanerRule {
    static let title = "PersistentHistoryTrackingKit 2.x"
    static let source = "fatbobman/PersistentHistoryTrackingKit 2.0.0–2.0.5, TransactionTimestampManager.swift"
    static let narrowsToActors = true
    static let notes = [
        "its default clean strategy is .none: it purges only when the app sets .byNotification or .byDuration, "
            + "after a merge that fetched a transaction",
        """
        with includingCloudKitMirroring, NSCloudKitMirroringDelegate.import is one of its authors and never has a \
        date: it never purges
        """,
    ]

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        let required = input.counted(excludingBatch: true)
        guard !required.isEmpty else { return .none("no actor but batch actors: no purge") }
        let undated = CleanerInput.undated(required)
        guard undated.isEmpty, let earliest = CleanerInput.earliest(required) else {
            return .none("\(undated) without a date: no purge")
        }
        return CleanerDecision(
            cutoff: earliest.date, reason: "every actor has a date: the earliest", heldBackBy: earliest.name)
    }
}
