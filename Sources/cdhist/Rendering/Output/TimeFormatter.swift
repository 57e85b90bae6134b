import Foundation
import HistoryKit

/// Formats Cocoa timestamps: local time with its zone (or UTC) for people,
/// ISO 8601 UTC with milliseconds for JSON. Both count days in the proleptic
/// Gregorian calendar, as ISO 8601 does (Foundation's DateFormatter switches
/// to the Julian calendar before 1582, so a table and JSON would disagree).
struct TimeFormatter {
    /// The zone of displayed times; nil for UTC.
    private let zone: TimeZone?

    init(utc: Bool) {
        zone = utc ? nil : TimeZone.current
    }

    /// For tables: `2024-01-01 01:00:00.250 +01:00`, or `…Z` in UTC; `-` when
    /// absent; the raw Cocoa seconds (`1e+12 s`, `inf s`) when no date expresses them.
    func display(_ cocoa: Double?) -> String {
        guard let cocoa else { return "-" }
        return display(cocoa) { String(decoding: $0, as: UTF8.self) } ?? "\(cocoa) s"
    }

    /// `body` applied to ``display(_:)``'s ASCII bytes, without building a String (a table
    /// writes one per transaction); nil when no date expresses `cocoa`.
    func display<T>(_ cocoa: Double, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        guard let date = Self.date(cocoa) else { return nil }
        guard let zone else { return Self.civil(date.timeIntervalSince1970, separator: " ", utc: true, body) }
        let offset = zone.secondsFromGMT(for: date)
        // The zone's offset can carry a date of the year 1 or 9999 past the calendar's ends.
        return Self.civil(date.timeIntervalSince1970 + Double(offset), separator: " ", utc: false) { local in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: local.count + 7) { text in
                _ = text.initialize(from: local)
                // ` +HH:MM`
                let minutes = abs(offset) / 60
                let n = local.count
                text[n] = UInt8(ascii: " ")
                text[n + 1] = UInt8(ascii: offset < 0 ? "-" : "+")
                text[n + 2] = Self.digit(minutes / 600)
                text[n + 3] = Self.digit(minutes / 60)
                text[n + 4] = UInt8(ascii: ":")
                text[n + 5] = Self.digit(minutes % 60 / 10)
                text[n + 6] = Self.digit(minutes)
                return body(UnsafeBufferPointer(text))
            }
        }
    }

    /// For JSON: ISO 8601 UTC, or nil when absent or outside the years 1–9999.
    func iso(_ cocoa: Double?) -> String? {
        iso(cocoa) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` applied to ``iso(_:)``'s ASCII bytes, without building a String (the export
    /// writes one per transaction); nil when there are none.
    func iso<T>(_ cocoa: Double?, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        guard let date = Self.date(cocoa) else { return nil }
        return Self.civil(date.timeIntervalSince1970, separator: "T", utc: true, body)
    }

    private static func digit(_ n: Int) -> UInt8 { UInt8(truncatingIfNeeded: 48 + n % 10) }

    static func civil(_ unix: Double, separator: Unicode.Scalar, utc: Bool) -> String? {
        civil(unix, separator: separator, utc: utc) { String(decoding: $0, as: UTF8.self) }
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` (with `separator` between date and time,
    /// and `Z` after it when `utc`) computed directly (ISO8601DateFormatter costs microseconds per call,
    /// too much for exports of millions of rows), handed to `body` as ASCII bytes. Rounds to the
    /// nearest millisecond, halves up, as that formatter does; nil outside the years 1–9999.
    static func civil<T>(
        _ unix: Double, separator: Unicode.Scalar, utc: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) -> T? {
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
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 bytes
        return withUnsafeMutableBytes(of: &text) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            func put(_ value: Int, _ width: Int, at offset: Int, then mark: UInt8) {
                var v = value
                for i in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
                bytes[offset + width] = mark
            }
            put(year, 4, at: 0, then: UInt8(ascii: "-"))
            put(month, 2, at: 5, then: UInt8(ascii: "-"))
            put(day, 2, at: 8, then: UInt8(ascii: separator))
            put(secondOfDay / 3600, 2, at: 11, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, 2, at: 14, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, 2, at: 17, then: UInt8(ascii: "."))
            put(millis, 3, at: 20, then: UInt8(ascii: "Z"))
            return body(UnsafeBufferPointer(rebasing: bytes[0..<(utc ? 24 : 23)]))
        }
    }

    private static func date(_ cocoa: Double?) -> Date? {
        // Outside the years 1–9999 ISO 8601 has no four-digit year.
        guard let c = cocoa, Transaction.datedTimestamps.contains(c) else { return nil }
        return Date(timeIntervalSinceReferenceDate: c)
    }
}
