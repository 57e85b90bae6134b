/// Apple's documentation, "Consuming Relevant Store Changes", its earlier "Purge history"
/// listing, quoted in fatbobman's 2021 article and copied into many apps:
/// `Date(timeIntervalSinceNow: TimeInterval(exactly: -604_800)!)`, then
/// `deleteHistory(before:)` with no author filter.
///
/// now − 604,800 seconds (seven days of 24 hours, whatever the time zone; the retention for a
/// copy that changed the number); everything before it goes. The current listing counts
/// calendar days (``AppleSampleCleaner``).
enum AppleEarlierListingCleaner: CleanerRule {
    static let title = "Apple's documentation, earlier listing"
    static let source =
        """
        Apple, Consuming Relevant Store Changes, earlier \"Purge history\" listing (604,800 s; quoted by \
        fatbobman, 2021)
        """
    static let narrowsToActors = false

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        let seconds = input.settings.retention
        let exact = seconds == seconds.rounded() && seconds < 1e15 ? "\(Int64(seconds)) s" : "\(seconds) s"
        return CleanerDecision(cutoff: input.retentionAgo, reason: "now − \(exact) (\(input.settings.retentionText))")
    }
}
