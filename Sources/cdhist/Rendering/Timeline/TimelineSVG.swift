import Foundation
import HistoryKit

/// The timeline as inline SVG for the report: a lane per author with a bar
/// per time bucket, a time axis, and under it a row per marker (merge
/// positions, the purge cut-off) with a line across the lanes. Every label is
/// real text; lanes are told apart by their names, not by their colours.
struct TimelineSVG {
    /// Buckets the report draws (about 6 px each).
    static let bucketCount = 120

    let time: TimeFormatter
    let utc: Bool
    let top: Int

    private let width = 1000.0
    private let labelWidth = 200.0
    private let countWidth = 64.0
    private let laneHeight = 30.0
    private let markerHeight = 22.0
    private let axisHeight = 34.0
    private let palette = ["#0072b2", "#b35900", "#007a5a", "#b0477f", "#3a7dbf", "#a34700", "#6a5acd", "#2f6f2f"]

    private var chartX: Double { labelWidth }
    private var chartWidth: Double { width - labelWidth - countWidth }

    func svg(_ timeline: ActivityTimeline, markers: [TimelineMarker]) -> String {
        guard timeline.range != nil else {
            return "<p class=\"note\">No transaction has a timestamp: there is nothing to draw.</p>\n"
        }
        let selection = timeline.groupingFamilies(ListSummary.frameworkFamilies).topLanes(top)
        var lanes: [(label: String, lane: ActivityTimeline.Lane, color: String)] = selection.lanes.enumerated().map {
            i, lane in
            (lane.label(short: true), lane, palette[i % palette.count])
        }
        if let others = selection.others { lanes.append((TimelineChart.othersLabel(selection), others, "#6e7781")) }
        let placed = markers.map { ($0, $0.placement(on: timeline)) }.filter { $0.1 != .nowhere }
        let lanesBottom = 8 + Double(lanes.count) * laneHeight
        let height = lanesBottom + axisHeight + Double(placed.count) * markerHeight + 8
        var out = """
            <svg class="timeline" viewBox="0 0 \(n(width)) \(n(height))" role="img" aria-labelledby="timeline-title" \
            font-size="13">
            <title id="timeline-title">Transactions per author over time, \(lanes.count) lanes, \(placed.count) \
            markers</title>

            """
        let busiest = lanes.flatMap(\.lane.counts).max() ?? 0
        let bucketWidth = chartWidth / Double(timeline.bucketCount)
        for (i, entry) in lanes.enumerated() {
            let y = 8 + Double(i) * laneHeight
            // Escaped once per lane, and short: it is repeated in every bar's title.
            let title = HTML.escape(HTML.shortened(entry.label, to: 200))
            out += "<g class=\"lane\">"
            out +=
                """
                <rect x=\"\(n(chartX))\" y=\"\(n(y))\" width=\"\(n(chartWidth))\" height=\"\(n(laneHeight - 4))\" \
                fill=\"#f6f8fa\"/>
                """
            out += text(HTML.escape(truncated(entry.label)), x: chartX - 8, y: y + laneHeight / 2 + 2, anchor: "end")
            out += text(
                String(entry.lane.total), x: width - 6, y: y + laneHeight / 2 + 2, anchor: "end", cssClass: "num")
            for (b, count) in entry.lane.counts.enumerated() where count > 0 && busiest > 0 {
                let h = max(2, (laneHeight - 8) * Double(count) / Double(busiest))
                let start = timeline.start + Double(b) * timeline.bucketSeconds
                out +=
                    "<rect x=\"\(n(chartX + Double(b) * bucketWidth))\" y=\"\(n(y + laneHeight - 4 - h))\" "
                    + "width=\"\(n(max(1, bucketWidth - 1)))\" height=\"\(n(h))\" fill=\"\(entry.color)\">"
                        + """
                        <title>\(title): \(count) transaction\(count == 1 ? "" : "s") from \
                        \(HTML.escape(time.display(start)))</title></rect>
                        """
            }
            out += "</g>\n"
        }
        out += axis(timeline, y: lanesBottom)
        for (i, (marker, placement)) in placed.enumerated() {
            out += markerRow(
                marker, placement, timeline: timeline, row: lanesBottom + axisHeight + Double(i) * markerHeight,
                lanesBottom: lanesBottom)
        }
        return out + "</svg>\n"
    }

    private func n(_ value: Double) -> String { String(format: "%.1f", value) }

    private func text(
        _ escaped: String, x: Double, y: Double, anchor: String = "start", cssClass: String? = nil,
        fill: String = "#1f2328"
    ) -> String {
        "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\" dominant-baseline=\"middle\" fill=\"\(fill)\""
            + (cssClass.map { " class=\"\($0)\"" } ?? "") + ">\(escaped)</text>"
    }

    /// Long names cut in the middle, as in the terminal, to fit the label column.
    private func truncated(_ label: String) -> String {
        label.count <= 22 ? label : String(label.prefix(10)) + "…" + String(label.suffix(11))
    }

    private func x(_ placement: TimelineMarker.Placement, _ timeline: ActivityTimeline, _ marker: TimelineMarker)
        -> Double
    {
        switch placement {
        case .bucket:
            return chartX + chartWidth * ((marker.timestamp ?? timeline.start) - timeline.start)
                / (timeline.end - timeline.start)
        case .beforeStart, .nowhere: return chartX
        case .afterEnd: return chartX + chartWidth
        }
    }

    private func axis(_ timeline: ActivityTimeline, y: Double) -> String {
        var out =
            """
            <g class=\"axis\"><line x1=\"\(n(chartX))\" y1=\"\(n(y))\" x2=\"\(n(chartX + chartWidth))\" \
            y2=\"\(n(y))\" stroke=\"#57606a\"/>
            """
        let ticks = TimeAxis.ticks(
            from: timeline.start, to: timeline.end, length: chartWidth, charWidth: 7.5, gap: 18, utc: utc)
        for tick in ticks {
            let x = chartX + chartWidth * (tick.timestamp - timeline.start) / (timeline.end - timeline.start)
            out += "<line x1=\"\(n(x))\" y1=\"\(n(y))\" x2=\"\(n(x))\" y2=\"\(n(y + 5))\" stroke=\"#57606a\"/>"
            let half = Double(tick.label.count) * 3.75
            out += text(
                HTML.escape(tick.label), x: min(max(x, chartX + half), chartX + chartWidth - half), y: y + 16,
                anchor: "middle",
                fill: "#57606a")
        }
        out += text(
            utc ? "UTC" : HTML.escape(TimeZone.current.abbreviation() ?? TimeZone.current.identifier), x: chartX - 8,
            y: y + 16,
            anchor: "end", fill: "#57606a")
        return out + "</g>\n"
    }

    /// A marker: its name on the left, a line through the lanes, a triangle
    /// (an arrow at the edge when it lies outside the history) and beside it
    /// what it is (the actor's status, or `purge cut-off`).
    private func markerRow(
        _ marker: TimelineMarker, _ placement: TimelineMarker.Placement, timeline: ActivityTimeline,
        row: Double, lanesBottom: Double
    ) -> String {
        let color: String
        let meaning: String
        switch marker.kind {
        case .actor(let status):
            color = MergeStatePresenter.style(status).flatMap(Self.color) ?? "#1f2328"
            meaning = status.rawValue
        case .cutoff:
            color = Self.color(.red) ?? "#1f2328"
            meaning = "purge cut-off"
        }
        let x = self.x(placement, timeline, marker)
        let mid = row + markerHeight / 2
        var out = "<g class=\"marker\">"
        out +=
            "<line x1=\"\(n(x))\" y1=\"8\" x2=\"\(n(x))\" y2=\"\(n(mid))\" stroke=\"\(color)\" stroke-width=\"1.5\""
            + (marker.kind.isCutoff ? " stroke-dasharray=\"5 3\"" : "") + "/>"
        out += text(HTML.escape(truncated(marker.name)), x: chartX - 8, y: mid, anchor: "end", fill: color)
        // The words go on the side with more room.
        let right = x < chartX + chartWidth / 2
        out += text(
            HTML.escape(meaning), x: right ? x + 12 : x - 12, y: mid, anchor: right ? "start" : "end", fill: color)
        let shape: String
        switch placement {
        case .beforeStart: shape = "M \(n(x)) \(n(mid)) l 9 -6 l 0 12 z"
        case .afterEnd: shape = "M \(n(x)) \(n(mid)) l -9 -6 l 0 12 z"
        default:
            shape =
                marker.kind.isCutoff
                ? "M \(n(x - 6)) \(n(mid - 6)) l 12 12 m 0 -12 l -12 12" : "M \(n(x)) \(n(mid - 7)) l 7 12 l -14 0 z"
        }
        out +=
            """
            <path d=\"\(shape)\" fill=\"\(color)\" stroke=\"\(color)\" \
            stroke-width=\"2\"><title>\(HTML.escape(HTML.shortened(marker.name, to: 200))): \
            \(HTML.escape(HTML.shortened(marker.detail)))</title></path>
            """
        return out + "</g>\n"
    }

    /// Status colours with at least 4.5:1 contrast on white.
    static func color(_ style: Style) -> String? {
        switch style {
        case .green: return "#1a7f37"
        case .yellow: return "#8a5a00"
        case .red: return "#c11f2b"
        case .bold, .dim: return nil
        }
    }
}
