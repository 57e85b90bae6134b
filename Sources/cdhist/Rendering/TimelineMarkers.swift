import Foundation
import HistoryKit

/// Something a timeline marks on its time axis: an actor's merge position or the purge cut-off.
struct TimelineMarker {
    enum Kind {
        case actor(ActorStatus)
        case cutoff
    }

    var kind: Kind
    /// The actor's name, or `cut-off`.
    var name: String
    /// Where it stands (Cocoa seconds); nil when it has no place on the axis (+∞: after everything).
    var timestamp: Double?
    /// What it means, in words.
    var detail: String

    /// Where a marker falls on an axis of `timeline`'s buckets.
    enum Placement: Equatable {
        case bucket(Int)
        case beforeStart
        case afterEnd
        case nowhere
    }

    func placement(on timeline: ActivityTimeline) -> Placement {
        guard let t = timestamp, timeline.range != nil, !t.isNaN else { return .nowhere }
        if t < timeline.start { return .beforeStart }
        return timeline.bucket(of: t).map { .bucket($0) } ?? .afterEnd
    }

    /// Text colour on a terminal.
    var style: Style {
        switch kind {
        case .actor(let status): return MergeStatePresenter.style(status) ?? .bold
        case .cutoff: return .red
        }
    }

    /// The markers of every actor with a recorded position, then the cut-off (when one was chosen).
    static func all(actors: [ActorReport], cutoff: (rule: String, timestamp: Double?)?, time: TimeFormatter, now: Double) -> [TimelineMarker] {
        let presenter = MergeStatePresenter(time: time, now: now)
        var markers = actors.filter { !$0.records.isEmpty }.map { a in
            TimelineMarker(kind: .actor(a.status), name: a.name, timestamp: a.positionDate ?? a.lastMerged?.timestamp,
                           detail: "\(a.status.rawValue), merged up to \(presenter.merged(a))")
        }
        if let cutoff {
            let at: String
            switch cutoff.timestamp {
            case nil: at = "not on the axis"
            case let t? where t == .infinity: at = "after the last transaction"
            case let t?: at = time.display(t)
            }
            markers.append(TimelineMarker(kind: .cutoff, name: "cut-off", timestamp: cutoff.timestamp, detail: "\(at) (\(cutoff.rule))"))
        }
        return markers
    }

    func json(time: TimeFormatter) -> JSONValue {
        let kindName: String
        var status: String?
        switch kind {
        case .actor(let s):
            kindName = "actor"
            status = s.rawValue
        case .cutoff:
            kindName = "cutoff"
        }
        return .object([
            ("kind", .string(kindName)),
            ("name", .string(name)),
            ("status", .optional(status)),
            ("timestamp", .optional(timestamp.flatMap { time.iso($0) })),
            ("cocoaTimestamp", .optional(timestamp.flatMap { $0.isFinite ? $0 : nil })),
            ("afterLastTransaction", .bool(timestamp == .infinity)),
            ("detail", .string(detail)),
        ])
    }
}

/// Calendar-aligned ticks for a time axis (whole minutes, hours, days,
/// months or years in local time or UTC), as many as fit.
enum TimeAxis {
    struct Tick: Equatable {
        var timestamp: Double
        var label: String
    }

    private static let steps: [(unit: Calendar.Component, count: Int, seconds: Double, format: String)] = [
        (.second, 1, 1, "HH:mm:ss"), (.second, 10, 10, "HH:mm:ss"), (.second, 30, 30, "HH:mm:ss"),
        (.minute, 1, 60, "HH:mm"), (.minute, 5, 300, "HH:mm"), (.minute, 15, 900, "HH:mm"), (.minute, 30, 1800, "HH:mm"),
        (.hour, 1, 3600, "MM-dd HH:mm"), (.hour, 3, 10800, "MM-dd HH:mm"), (.hour, 6, 21600, "MM-dd HH:mm"),
        (.hour, 12, 43200, "MM-dd HH:mm"), (.day, 1, 86400, "yyyy-MM-dd"), (.day, 2, 172_800, "yyyy-MM-dd"),
        (.month, 1, 2_629_746, "yyyy-MM"), (.month, 3, 7_889_238, "yyyy-MM"), (.month, 6, 15_778_476, "yyyy-MM"),
        (.year, 1, 31_556_952, "yyyy"), (.year, 2, 63_113_904, "yyyy"), (.year, 5, 157_784_760, "yyyy"),
        (.year, 10, 315_569_520, "yyyy"), (.year, 100, 3_155_695_200, "yyyy"), (.year, 1000, 31_556_952_000, "yyyy"),
    ]

    /// Ticks from `start` to `end` (Cocoa seconds) on an axis `length` units
    /// long, where a label character takes `charWidth` units and labels need
    /// `gap` units between them.
    static func ticks(from start: Double, to end: Double, length: Double, charWidth: Double, gap: Double, utc: Bool) -> [Tick] {
        let span = end - start
        guard span > 0, span.isFinite, length > 0 else { return [] }
        guard let step = steps.first(where: { step in
            span / step.seconds * (Double(step.format.count) * charWidth + gap) <= length
        }) else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc ? TimeZone(identifier: "UTC") ?? .current : .current
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = step.format
        let startDate = Date(timeIntervalSinceReferenceDate: start)
        guard var date = calendar.dateInterval(of: step.unit, for: startDate)?.start else { return [] }
        // The first boundary at or after the start whose value is a multiple of the step.
        // Days and months count from 1: quarters start in January, April, July and October.
        let origin = step.unit == .day || step.unit == .month ? 1 : 0
        var guardCount = 0
        while date.timeIntervalSinceReferenceDate < start || (calendar.component(step.unit, from: date) - origin) % step.count != 0 {
            guard let next = calendar.date(byAdding: step.unit, value: 1, to: date), guardCount < 2 * step.count + 2 else { return [] }
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
