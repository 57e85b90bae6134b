import Foundation
import HistoryKit

/// Parses `--after`/`--before` values: a date (ISO 8601 with or without time
/// and zone; relative `7d`, `36h`, `90m`, `30s`, `2w`; `now`), `#N` or `tx:N`, or
/// `token:FILE` / `token:STOREUUID:N`.
struct PositionParser {
    /// Interpret dates without a zone as UTC instead of local time.
    var utc: Bool
    var now: Date = Date()

    func bound(_ text: String, option: String) throws -> HistoryQuery.Bound {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // A transaction as tables print it (#20), or as tx:20.
        for prefix in ["#", "tx:"] where trimmed.lowercased().hasPrefix(prefix) {
            guard let n = Int64(trimmed.dropFirst(prefix.count)), n >= 0 else {
                throw CLIError.invalidValue(
                    option: option, value: text, reason: "expected \(prefix)N with a transaction number (0 or more)")
            }
            return .transaction(n)
        }
        if !trimmed.isEmpty, trimmed.allSatisfy({ ("0"..."9").contains($0) }) {
            throw CLIError.invalidValue(
                option: option, value: text,
                reason:
                    """
                    a bare number is neither a transaction nor a date: write #\(trimmed) (or tx:\(trimmed)) for \
                    transaction \(trimmed), or a date like 2024-05-01
                    """
            )
        }
        if trimmed.lowercased().hasPrefix("token:") {
            return .token(try TokenSpec.token(fileOrLiteral: String(trimmed.dropFirst(6))))
        }
        return .date(try date(trimmed, option: option))
    }

    /// The file a `token:FILE` value reads (nil for any other value): a command that writes
    /// must not replace it.
    static func tokenFile(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("token:") else { return nil }
        return String(trimmed.dropFirst(6))
    }

    /// `bound` as an option value that parses back to it: an ISO 8601 date, `tx:N`, `token:STOREUUID:N`.
    static func text(_ bound: HistoryQuery.Bound, time: TimeFormatter) -> String {
        switch bound {
        case .date(let d): return time.iso(d) ?? "\(d)"
        case .transaction(let n): return "tx:\(n)"
        case .token(let token): return "token:\(token)"
        }
    }

    /// Cocoa seconds for a date value.
    func date(_ text: String, option: String) throws -> Double {
        let lower = text.lowercased()
        if lower == "now" { return now.timeIntervalSinceReferenceDate }
        if let relative = Self.relativeSeconds(lower) { return now.timeIntervalSinceReferenceDate - relative }
        if let date = parseISO(text) { return date.timeIntervalSinceReferenceDate }
        throw CLIError.invalidValue(
            option: option, value: text,
            reason:
                """
                not a date (use ISO 8601 like 2024-05-01 or 2024-05-01T12:00:00Z, a relative age like 7d or 36h, \
                now, #N or tx:N, token:FILE or token:STOREUUID:N)
                """
        )
    }

    /// Seconds of a duration such as `7d`, `36h`, `90m`, `30s` or `2w` (more than none).
    static func duration(_ text: String, option: String) throws -> Double {
        guard let seconds = relativeSeconds(text.lowercased()) else {
            throw CLIError.invalidValue(
                option: option, value: text, reason: "not a duration (use 7d, 36h, 90m, 30s or 2w)")
        }
        guard seconds > 0 else {
            throw CLIError.invalidValue(option: option, value: text, reason: "a duration longer than none is needed")
        }
        guard seconds <= 100 * 365 * 86400 else {
            throw CLIError.invalidValue(option: option, value: text, reason: "more than a hundred years")
        }
        return seconds
    }

    private static func relativeSeconds(_ text: String) -> Double? {
        guard let unit = text.last, let value = Double(text.dropLast()), value >= 0, value.isFinite else { return nil }
        switch unit {
        case "s": return value
        case "m": return value * 60
        case "h": return value * 3600
        case "d": return value * 86400
        case "w": return value * 7 * 86400
        default: return nil
        }
    }

    private func parseISO(_ text: String) -> Date? {
        let normalized = text.replacingOccurrences(of: " ", with: "T")
        let hasZone =
            normalized.hasSuffix("Z")
            || normalized.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil
                && normalized.contains("T")
        let formats = [
            "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mmXXXXX",
            "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd",
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = utc ? TimeZone(identifier: "UTC") : TimeZone.current
        for format in formats where format.hasSuffix("XXXXX") == hasZone {
            formatter.dateFormat = format
            if let d = formatter.date(from: normalized) { return d }
        }
        return nil
    }
}
