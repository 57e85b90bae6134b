/// fatbobman's demo repository (fatbobman/PersistentHistoryTrackingDemo at 028eafb,
/// `PersistentHistoryTrackingDemo/Extension.swift` and `PersistentHistoryTrackCleaner.swift`),
/// which differs from his article.
///
/// `max(earliest date ?? now − 7 days, now − 7 days)`: never later than a week ago, and it always
/// purges; the delete narrowed to every `AppActor`; then every actor's key set to nil.
enum FatbobmanDemoCleaner: CleanerRule {
    static let title = "fatbobman's demo repository"
    static let source = "fatbobman/PersistentHistoryTrackingDemo 028eafb, Extension.swift"
    static let narrowsToActors = true
    static let resetsKeys = true

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        guard let earliest = CleanerInput.earliest(input.actors), earliest.date >= input.weekAgo else {
            return CleanerDecision(
                cutoff: input.weekAgo, reason: "the later of the earliest date and now − 7 days: now − 7 days")
        }
        return CleanerDecision(
            cutoff: earliest.date, reason: "the later of the earliest date and now − 7 days: the earliest date",
            heldBackBy: earliest.name)
    }
}
