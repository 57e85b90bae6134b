/// SwiftLee's "Persistent History Tracking in Core Data" (AvdLee/CoreDataBestPractices at
/// dee1250, `Best Practices/Persistent History Tracking/PersistentHistoryCleaner.swift` and
/// `PersistentHistoryObserver.swift`).
///
/// Every target's date, a missing one as `.distantPast`: the earliest, or no purge when any
/// target has none. Everything before it goes (no author filter); then every target's key is
/// set to nil ("as we would otherwise end up in an infinite loop"), so each target re-reads
/// all history that is left.
enum SwiftLeeCleaner: CleanerRule {
    static let title = "SwiftLee (CoreDataBestPractices)"
    static let source = "AvdLee/CoreDataBestPractices dee1250, PersistentHistoryCleaner.swift"
    static let narrowsToActors = false
    static let resetsKeys = true

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        commonTimestamp(input.actors)
    }

    /// `lastCommonTransactionTimestamp(in:)`, which StudApp's cleaner shares.
    static func commonTimestamp(_ actors: [CleanerInput.Actor]) -> CleanerDecision {
        let undated = CleanerInput.undated(actors)
        guard undated.isEmpty else { return .none("\(undated) without a date: no purge") }
        guard let earliest = CleanerInput.earliest(actors) else { return .none("no actor of the app: no purge") }
        return CleanerDecision(cutoff: earliest.date, reason: "the earliest date", heldBackBy: earliest.name)
    }
}
