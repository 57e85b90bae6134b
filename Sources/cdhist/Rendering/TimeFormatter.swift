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
        guard let date = Self.date(cocoa) else { return nil }
        return Self.fastISO(date.timeIntervalSince1970) ?? iso.string(from: date)
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` computed directly (ISO8601DateFormatter costs
    /// microseconds per call, too much for exports of millions of rows). Rounds
    /// to the nearest millisecond, halves up, as that formatter does; nil outside
    /// the years 1–9999, which are left to the formatter.
    static func fastISO(_ unix: Double) -> String? {
        let ms = Int64((unix * 1000 + 0.5).rounded(.down))
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        var days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = Int(seconds - days * 86400)
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        guard (1...9999).contains(year) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, _ width: Int, at offset: Int) {
            var v = value
            for i in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
            }
        }
        put(year, 4, at: 0); put(month, 2, at: 5); put(day, 2, at: 8)
        put(secondOfDay / 3600, 2, at: 11); put(secondOfDay / 60 % 60, 2, at: 14); put(secondOfDay % 60, 2, at: 17)
        put(millis, 3, at: 20)
        for (i, c) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
            bytes[i] = UInt8(ascii: c)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func date(_ cocoa: Double?) -> Date? {
        // Beyond ±10,000 years ISO 8601 has no four-digit year.
        guard let c = cocoa, c.isFinite, abs(c) < 3.1e11 else { return nil }
        return Date(timeIntervalSinceReferenceDate: c)
    }
}
