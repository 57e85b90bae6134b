import Foundation
import HistoryKit

/// Something a timeline marks on its time axis: an actor's merge position or the purge cut-off.
struct TimelineMarker {
    enum Kind {
        case actor(ActorStatus)
        case cutoff

        var isCutoff: Bool {
            if case .cutoff = self { return true }
            return false
        }
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
    static func all(
        actors: [ActorReport], cutoff: (rule: String, timestamp: Double?)?, time: TimeFormatter, now: Double
    ) -> [TimelineMarker] {
        let presenter = MergeStatePresenter(time: time, now: now)
        var markers = actors.filter { !$0.records.isEmpty }.map { a in
            TimelineMarker(
                kind: .actor(a.status), name: a.name, timestamp: a.positionDate ?? a.lastMerged?.timestamp,
                detail: "\(a.status.rawValue), merged up to \(presenter.merged(a))")
        }
        if let cutoff {
            let at: String
            switch cutoff.timestamp {
            case nil: at = "not on the axis"
            case let t? where t == .infinity: at = "after the last transaction"
            case let t?: at = time.display(t)
            }
            markers.append(
                TimelineMarker(
                    kind: .cutoff, name: "cut-off", timestamp: cutoff.timestamp, detail: "\(at) (\(cutoff.rule))"))
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
