/// Apple's documentation, "Consuming Relevant Store Changes" (its "Purge history" listing, which
/// many apps copy as it is): `Date(timeIntervalSinceNow: TimeInterval(exactly: -604_800)!)`,
/// then `deleteHistory(before:)` with no author filter.
///
/// now − 604,800 seconds (seven days of 24 hours, whatever the time zone; `--retention` for a
/// copy that changed the number); everything before it goes.
enum AppleSampleCleaner: CleanerRule {
    static let title = "Apple's documentation"
    static let source = "Apple, Consuming Relevant Store Changes, \"Purge history\""
    static let narrowsToActors = false

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        CleanerDecision(cutoff: input.retentionAgo, reason: "now − \(input.settings.retentionText)")
    }
}
