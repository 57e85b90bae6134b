/// StudApp (stoeffn/StudApp at 983df0b, `StudKit/Models/PersistentHistoryService.swift`).
///
/// SwiftLee's cut-off (``SwiftLeeCleaner``): the earliest of every target's date, no purge when
/// any has none; everything before it goes; the keys are kept.
enum StudAppCleaner: CleanerRule {
    static let title = "StudApp"
    static let source = "stoeffn/StudApp 983df0b, PersistentHistoryService.swift"
    static let narrowsToActors = false

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        SwiftLeeCleaner.commonTimestamp(input.actors)
    }
}
