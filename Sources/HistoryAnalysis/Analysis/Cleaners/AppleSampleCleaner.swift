import Foundation
import HistoryReading

/// Apple's documentation, "Consuming Relevant Store Changes", its current "Purge history"
/// listing: `Calendar.current.date(byAdding: .day, value: -7, to: Date())`, then
/// `deleteHistory(before:)` with no author filter.
///
/// now − 7 calendar days in the device's time zone (``CleanerSettings/timeZone``): the same
/// time of day a week before, so an hour more or less than 604,800 s across a change of
/// daylight saving time. A retention of whole days is that many calendar days (an app that
/// changed the 7); any other is subtracted as seconds, as `byAdding: .hour` would.
/// Everything before it goes. The earlier listing is ``AppleEarlierListingCleaner``.
enum AppleSampleCleaner: CleanerRule {
    static let title = "Apple's documentation"
    static let source = "Apple, Consuming Relevant Store Changes, \"Purge history\" (current listing: 7 calendar days)"
    static let narrowsToActors = false

    static func decide(_ input: CleanerInput) -> CleanerDecision {
        let zone = input.settings.timeZone
        guard let days = input.settings.retentionDays else {
            return CleanerDecision(cutoff: input.retentionAgo, reason: "now − \(input.settings.retentionText)")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard
            let date = calendar.date(byAdding: .day, value: -days, to: Date(timeIntervalSinceReferenceDate: input.now))
        else {
            return .none("the calendar cannot count \(plural(days, "day")) back from now in \(zone.identifier)")
        }
        // Foundation on Linux names UTC "GMT".
        let name = zone.identifier == "GMT" ? "UTC" : zone.identifier
        return CleanerDecision(
            cutoff: date.timeIntervalSinceReferenceDate, reason: "now − \(plural(days, "calendar day")) in \(name)")
    }
}
