/// PersistentHistoryTrackingKit 1.0.0–1.0.3, the manual cleaner (`cleanerBuilder()`,
/// fatbobman/PersistentHistoryTrackingKit tags 1.0.0 and 1.0.3, `ManualCleaner.swift` calling
/// `TransactionTimestampManager.getLastCommonTransactionTimestamp(in:)` without `exclude`).
///
/// The automatic rule (``PHTK100Cleaner``) over every author, batch authors included: an
/// undated batch author counts as an actor without a date.
enum PHTK100ManualCleaner: CleanerRule {
    static let title = "PersistentHistoryTrackingKit 1.0.0–1.0.3, manual cleaner"
    static let source = "fatbobman/PersistentHistoryTrackingKit 1.0.0–1.0.3, ManualCleaner.swift"
    static let narrowsToActors = true

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        PHTK100Cleaner.commonTimestamp(input.counted(excludingBatch: false), weekAgo: input.weekAgo)
    }
}
