import Foundation

/// A moment as messages give it: `2025-03-03 09:00:00Z` (UTC, whole seconds) from Cocoa seconds.
public func moment(_ cocoaSeconds: Double) -> String {
    guard cocoaSeconds.isFinite, abs(cocoaSeconds) < 3e11 else { return "\(cocoaSeconds) (Cocoa seconds)" }
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withFullDate, .withSpaceBetweenDateAndTime, .withTime, .withColonSeparatorInTime]
    return f.string(from: Date(timeIntervalSinceReferenceDate: cocoaSeconds.rounded(.down))) + "Z"
}
