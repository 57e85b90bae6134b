/// PersistentHistoryTrackingKit 2.x, the manual cleaner its README points to (`cleanerBuilder()`,
/// fatbobman/PersistentHistoryTrackingKit tags 2.0.0 and 2.0.5, `ManualCleanerActor.swift`).
///
/// The earliest date among every author that has one, batch authors included; authors without
/// a date are passed over; none dated, no purge. The delete is narrowed to every author.
enum PHTK2ManualCleaner: CleanerRule {
    static let title = "PersistentHistoryTrackingKit 2.x, manual cleaner"
    static let source = "fatbobman/PersistentHistoryTrackingKit 2.0.0–2.0.5, ManualCleanerActor.swift"
    static let narrowsToActors = true

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        let actors = input.counted(excludingBatch: false)
        guard let earliest = CleanerInput.earliest(actors) else { return .none("no actor has a date: no purge") }
        let undated = CleanerInput.undated(actors)
        return CleanerDecision(
            cutoff: earliest.date,
            reason: "the earliest date" + (undated.isEmpty ? "" : "; \(undated) without a date passed over"),
            heldBackBy: earliest.name)
    }
}
