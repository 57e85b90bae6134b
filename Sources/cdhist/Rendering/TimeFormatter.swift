import Foundation

/// Formats Cocoa timestamps: local time with its zone (or UTC) for people,
/// ISO 8601 UTC with milliseconds for JSON.
struct TimeFormatter {
    private let display: DateFormatter
    private let iso: ISO8601DateFormatter

    init(utc: Bool) {
        display = DateFormatter()
        display.locale = Locale(identifier: "en_US_POSIX")
        display.timeZone = utc ? TimeZone(identifier: "UTC") : TimeZone.current
        display.dateFormat = utc ? "yyyy-MM-dd HH:mm:ss.SSS'Z'" : "yyyy-MM-dd HH:mm:ss.SSS xxx"
        iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        iso.timeZone = TimeZone(identifier: "UTC")
    }

    /// For tables: `2024-01-01 01:00:00.250 +01:00`, or `…Z` in UTC; `-` when absent or not finite.
    func display(_ cocoa: Double?) -> String {
        guard let date = Self.date(cocoa) else { return cocoa.map { "\($0)" } ?? "-" }
        return display.string(from: date)
    }

    /// For JSON: ISO 8601 UTC, or nil when absent or not representable.
    func iso(_ cocoa: Double?) -> String? {
        Self.date(cocoa).map { iso.string(from: $0) }
    }

    private static func date(_ cocoa: Double?) -> Date? {
        // Beyond ±10,000 years ISO 8601 has no four-digit year.
        guard let c = cocoa, c.isFinite, abs(c) < 3.1e11 else { return nil }
        return Date(timeIntervalSinceReferenceDate: c)
    }
}
