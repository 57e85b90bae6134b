/// AppwiseCore (wisemen-digital/AppwiseCore, branch feature/database-history-tracking at f0296b4,
/// `Sources/CoreData/History Tracking/PersistentHistoryCleaner.swift` and `PersistentHistorySettings.swift`).
///
/// When every author has a date, the later of the earliest and now − `timeToLive` (the
/// retention, 7 days by default); when any has none (or there is none), now − `timeToLive`.
/// Everything of the store before it goes; then every author's key is removed.
enum AppwiseCleaner: CleanerRule {
    static let title = "AppwiseCore"
    static let source = "wisemen-digital/AppwiseCore f0296b4, PersistentHistoryCleaner.swift"
    static let narrowsToActors = false
    static let resetsKeys = true

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        let expiry = input.retentionAgo
        let ttl = input.settings.retentionText
        let undated = CleanerInput.undated(input.actors)
        guard undated.isEmpty, let earliest = CleanerInput.earliest(input.actors) else {
            return CleanerDecision(
                cutoff: expiry,
                reason: undated.isEmpty
                    ? "no actor of the app: now − \(ttl)" : "\(undated) without a date: now − \(ttl)")
        }
        if earliest.date > expiry {
            return CleanerDecision(
                cutoff: earliest.date, reason: "the later of the earliest date and now − \(ttl): the earliest date",
                heldBackBy: earliest.name)
        }
        return CleanerDecision(cutoff: expiry, reason: "the later of the earliest date and now − \(ttl): now − \(ttl)")
    }
}
