import Foundation

/// Calendar-aligned ticks for a time axis (whole minutes, hours, days,
/// months or years in local time or UTC), as many as fit.
enum TimeAxis {
    struct Tick: Equatable {
        var timestamp: Double
        var label: String
    }

    private static let steps: [(unit: Calendar.Component, count: Int, seconds: Double, format: String)] = [
        (.second, 1, 1, "HH:mm:ss"), (.second, 10, 10, "HH:mm:ss"), (.second, 30, 30, "HH:mm:ss"),
        (.minute, 1, 60, "HH:mm"), (.minute, 5, 300, "HH:mm"), (.minute, 15, 900, "HH:mm"),
        (.minute, 30, 1800, "HH:mm"),
        // An hour at a time reads without its day (the heading gives the dates); days and weeks without their year.
        (.hour, 1, 3600, "HH:mm"), (.hour, 3, 10800, "MM-dd HH:mm"), (.hour, 6, 21600, "MM-dd HH:mm"),
        (.hour, 12, 43200, "MM-dd HH:mm"), (.day, 1, 86400, "MM-dd"), (.day, 2, 172_800, "MM-dd"),
        (.weekOfYear, 1, 604_800, "MM-dd"), (.weekOfYear, 2, 1_209_600, "MM-dd"),
        (.month, 1, 2_629_746, "yyyy-MM"), (.month, 3, 7_889_238, "yyyy-MM"), (.month, 6, 15_778_476, "yyyy-MM"),
        (.year, 1, 31_556_952, "yyyy"), (.year, 2, 63_113_904, "yyyy"), (.year, 5, 157_784_760, "yyyy"),
        (.year, 10, 315_569_520, "yyyy"), (.year, 100, 3_155_695_200, "yyyy"), (.year, 1000, 31_556_952_000, "yyyy"),
    ]

    /// Ticks from `start` to `end` (Cocoa seconds) on an axis `length` units
    /// long, where a label character takes `charWidth` units and labels need
    /// `gap` units between them.
    static func ticks(from start: Double, to end: Double, length: Double, charWidth: Double, gap: Double, utc: Bool)
        -> [Tick]
    {
        let span = end - start
        guard span > 0, span.isFinite, length > 0 else { return [] }
        guard
            let step = steps.first(where: { step in
                span / step.seconds * (Double(step.format.count) * charWidth + gap) <= length
            })
        else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc ? TimeZone(identifier: "UTC") ?? .current : .current
        // Weeks start on Monday (ISO 8601).
        calendar.firstWeekday = 2
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = step.format
        let startDate = Date(timeIntervalSinceReferenceDate: start)
        guard var date = calendar.dateInterval(of: step.unit, for: startDate)?.start else { return [] }
        // The first boundary at or after the start whose value is a multiple of the step.
        // Days and months count from 1: quarters start in January, April, July and October.
        let origin = step.unit == .day || step.unit == .month || step.unit == .weekOfYear ? 1 : 0
        var guardCount = 0
        while date.timeIntervalSinceReferenceDate < start
            || (calendar.component(step.unit, from: date) - origin) % step.count != 0
        {
            guard let next = calendar.date(byAdding: step.unit, value: 1, to: date), guardCount < 2 * step.count + 2
            else { return [] }
            date = next
            guardCount += 1
        }
        var ticks: [Tick] = []
        while date.timeIntervalSinceReferenceDate <= end, ticks.count < 1000 {
            ticks.append(Tick(timestamp: date.timeIntervalSinceReferenceDate, label: formatter.string(from: date)))
            guard let next = calendar.date(byAdding: step.unit, value: step.count, to: date) else { break }
            date = next
        }
        return ticks
    }
}
