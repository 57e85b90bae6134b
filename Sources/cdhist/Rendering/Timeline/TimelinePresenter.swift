import Foundation
import HistoryKit

/// The timeline as a document, for JSON and CSV: every author's counts per
/// bucket, and the markers.
struct TimelinePresenter {
    let time: TimeFormatter

    private func laneJSON(_ lane: ActivityTimeline.Lane) -> JSONValue {
        .object([
            ("author", lane.field == .author ? .optional(lane.author) : .null),
            ("value", .optional(lane.author)),
            ("transactionCount", .int(Int64(lane.total))),
            ("counts", .array(lane.counts.map { .int(Int64($0)) })),
        ])
    }

    func document(_ timeline: ActivityTimeline, markers: [TimelineMarker], store: HistoryStore) -> Document {
        let starts = (0..<timeline.bucketCount).map { timeline.start + Double($0) * timeline.bucketSeconds }
        let lanes = timeline.lanes
        // CSV columns: every author, and the authors past the limit together.
        let columns =
            lanes.map { ($0.author ?? "-", $0.counts) }
            + (timeline.overflow.map { [("(other \(timeline.field.pluralNoun))", $0.counts)] } ?? [])
        return Document(
            kind: "timeline",
            json: [
                ("store", .string(store.path)),
                ("storeID", .string(store.storeUUID)),
                ("by", .string(timeline.field.rawValue)),
                ("firstTimestamp", .optional(timeline.range.flatMap { time.iso($0.lowerBound) })),
                ("lastTimestamp", .optional(timeline.range.flatMap { time.iso($0.upperBound) })),
                ("firstCocoaTimestamp", .optional(timeline.range?.lowerBound)),
                ("lastCocoaTimestamp", .optional(timeline.range?.upperBound)),
                ("bucketSeconds", .double(timeline.bucketSeconds)),
                ("bucketCount", .int(Int64(timeline.bucketCount))),
                ("transactionCount", .int(Int64(timeline.datedCount))),
                ("undatedTransactionCount", .int(Int64(timeline.undatedCount))),
                ("lanes", .array(lanes.map(laneJSON))),
                ("overflow", timeline.overflow.map(laneJSON) ?? .null),
                ("markers", .array(markers.map { $0.json(time: time) })),
            ],
            sections: [
                .table(
                    title: "Transactions per bucket",
                    columns: [Column("bucketStart")] + columns.map { Column($0.0, alignRight: true) },
                    rows: timeline.range == nil
                        ? []
                        : starts.enumerated().map { i, start in
                            [Cell(time.iso(start) ?? String(start))] + columns.map { Cell(String($0.1[i])) }
                        }),
                // For CSV only (a terminal gets the chart): the JSON's names, an empty cell for no time.
                .table(
                    title: "Markers", columns: [Column("kind"), Column("name"), Column("timestamp"), Column("detail")],
                    rows: markers.map { m in
                        [
                            Cell(m.kind.isCutoff ? "cutoff" : "actor"), Cell(m.name),
                            Cell(m.timestamp.flatMap { time.iso($0) } ?? ""), Cell(m.detail),
                        ]
                    }),
            ], csvFromSections: true)
    }
}
