import Foundation
import HistoryKit

/// The timeline on a terminal: one lane per author (the busiest `top`, the
/// rest summed in one lane), one block character per time bucket scaled to
/// the busiest bucket, a time axis, a row per marker, and a legend.
struct TimelineChart {
    /// Where things go on a line: names, the chart (one column per bucket), totals.
    struct Layout {
        let width: Int
        let labelWidth: Int
        let chartWidth: Int
        let countWidth: Int

        init(width: Int, transactionCount: Int) {
            self.width = width
            countWidth = String(transactionCount).count
            labelWidth = min(24, max(10, width / 4))
            chartWidth = max(1, width - labelWidth - countWidth - 2)
        }
    }

    /// The characters drawn: Unicode blocks, or plain ASCII (`--ascii`).
    struct Glyphs {
        let levels: [Character]
        let axis, tick, track, actor, cutoff, before, after: Character
        let ellipsis: String
        /// Typographic characters of the texts around the chart, and what replaces them.
        let punctuation: [Character: String]

        static let unicode = Glyphs(
            levels: Array(" ▁▂▃▄▅▆▇█"), axis: "─", tick: "┬", track: "·", actor: "▲", cutoff: "✂",
            before: "◂", after: "▸", ellipsis: "…", punctuation: [:])
        static let ascii = Glyphs(
            levels: Array(" .:-=+*#@"), axis: "-", tick: "+", track: ".", actor: "^", cutoff: "X",
            before: "<", after: ">", ellipsis: "~",
            punctuation: ["–": "-", "−": "-", "—": "-", "…": "...", "→": "->", "×": "x"])
    }

    let layout: Layout
    let glyphs: Glyphs
    let context: RenderContext
    let top: Int
    let utc: Bool

    /// The chart's lines; `window` is the span asked for (--after, --before), which an empty chart names.
    func lines(
        _ timeline: ActivityTimeline, markers: [TimelineMarker], store: String, window: HistoryQuery = HistoryQuery()
    ) -> [String] {
        let time = context.time
        guard let range = timeline.range else {
            func bound(_ b: HistoryQuery.Bound) -> String {
                switch b {
                case .date(let d): return time.display(d)
                case .transaction(let n): return "#\(n)"
                case .token(let token): return "token \(token)"
                }
            }
            let asked: String
            switch (window.after, window.before) {
            case (let after?, let before?): asked = "between \(bound(after)) and \(bound(before))"
            case (let after?, nil): asked = "after \(bound(after))"
            case (nil, let before?): asked = "before \(bound(before))"
            case (nil, nil): asked = "with a timestamp"
            }
            return wrap(
                "\(store): no transactions \(asked)"
                    + (timeline.undatedCount > 0 ? " (\(timeline.undatedCount) without a timestamp)" : ""))
        }
        // Transactions without an author (bundle ID, process) are not an author's: counted apart.
        let noun = timeline.field.noun
        let named = timeline.lanes.filter { $0.author != nil }.count
        let anonymous = timeline.lanes.first { $0.author == nil }?.total ?? 0
        let authors =
            (timeline.overflow == nil
                ? "\(named) \(named == 1 ? noun : timeline.field.pluralNoun)"
                : "over \(named) \(timeline.field.pluralNoun)")
            + (anonymous > 0 ? " (\(anonymous) without \(noun.first == "a" ? "an" : "a") \(noun))" : "")
        // A framework's many authors (a migration per model version) share a lane.
        let timeline = timeline.field == .author ? timeline.groupingFamilies(ListSummary.frameworkFamilies) : timeline
        var out = wrap(
            "\(store): \(plural(timeline.datedCount, "transaction")) by \(authors), "
                + "\(time.display(range.lowerBound)) to \(time.display(range.upperBound))"
        ).map { context.style($0, .bold) }
        if timeline.undatedCount > 0 {
            out += wrap("\(plural(timeline.undatedCount, "transaction")) without a usable timestamp not drawn")
        }
        out.append("")
        let selection = timeline.topLanes(top)
        let drawn = selection.lanes + (selection.others.map { [$0] } ?? [])
        let busiest = drawn.flatMap(\.counts).max() ?? 0
        for lane in selection.lanes {
            out.append(row(label(lane.label(short: true)), bars(lane.counts, busiest: busiest), total: lane.total))
        }
        if let others = selection.others {
            out.append(
                row(
                    context.style(label(Self.othersLabel(selection, field: timeline.field)), .dim),
                    bars(others.counts, busiest: busiest), total: others.total))
        }
        out += axis(timeline)
        let placed = markers.map { ($0, $0.placement(on: timeline)) }
        for (marker, placement) in placed where placement != .nowhere {
            out.append(row(context.style(label(marker.name), marker.style), track(placement, marker), total: nil))
        }
        out.append("")
        let full = String(glyphs.levels.last ?? "#")
        out += wrap(
            """
            \(String(glyphs.levels.dropFirst())) transactions in one column \
            (\(MergeStatePresenter.age(timeline.bucketSeconds))): 
            """
                + "\(full) is \(busiest)")
        for (marker, placement) in placed {
            // The glyph its row draws: beyond either end, the arrow that points there.
            let glyph = String(mark(placement, marker))
            // The name in the label column, what it means beside it (continued under it when long).
            let detail = wrap(marker.detail, indent: layout.labelWidth + 1)
            out.append(
                context.style(glyph + " " + label(marker.name, width: layout.labelWidth - 2), marker.style) + " "
                    + detail[0].dropFirst(layout.labelWidth + 1))
            out += detail.dropFirst()
        }
        if placed.contains(where: { $0.1 == .beforeStart || $0.1 == .afterEnd }) {
            out += wrap("\(glyphs.before) \(glyphs.after) before the first or after the last transaction")
        }
        return out
    }

    /// `text` in lines of at most the layout's width, broken between words
    /// (inside a word only when it is longer than a line), every line after
    /// `indent` spaces.
    private func wrap(_ text: String, indent: Int = 0) -> [String] {
        let shown = TerminalText.visible(text, newline: " ", tab: " ")
        let text = glyphs.punctuation.isEmpty ? shown : shown.map { glyphs.punctuation[$0] ?? String($0) }.joined()
        let room = max(1, layout.width - indent)
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            var word = word
            while word.count > room {
                if !line.isEmpty {
                    lines.append(line)
                    line = ""
                }
                lines.append(String(word.prefix(room)))
                word = String(word.dropFirst(room))
            }
            if line.isEmpty {
                line = word
            } else if line.count + 1 + word.count <= room {
                line += " " + word
            } else {
                lines.append(line)
                line = word
            }
        }
        lines.append(line)
        return lines.map { margin + $0 }
    }

    /// `3 other authors`, or `over 1000 other authors` when some were not told apart (bundle IDs, processes).
    static func othersLabel(_ selection: ActivityTimeline.LaneSelection, field: TransactionField = .author) -> String {
        let n = selection.othersOverflowed ? selection.otherAuthors - 1 : selection.otherAuthors
        return selection.othersOverflowed
            ? "over \(n) other \(field.pluralNoun)" : "\(n) other \(n == 1 ? field.noun : field.pluralNoun)"
    }

    /// A lane's name fitted to the label column, cut in the middle: names that
    /// share a long prefix (`NSCloudKitMirroringDelegate.import`, `.export`) stay apart.
    private func label(_ text: String, width: Int? = nil) -> String {
        let clean = TerminalText.visible(text, newline: " ", tab: " ")
        let width = width ?? layout.labelWidth
        guard clean.count > width else { return pad(clean, to: width) }
        let room = max(0, width - glyphs.ellipsis.count)
        return String(clean.prefix(room - room / 2)) + glyphs.ellipsis + String(clean.suffix(room / 2))
    }

    private func pad(_ text: String, to width: Int) -> String { TableLayout.pad(text, to: width, right: false) }

    private func row(_ label: String, _ chart: String, total: Int?) -> String {
        let count = total.map { " " + TableLayout.pad(String($0), to: layout.countWidth, right: true) } ?? ""
        return (label + " " + chart + count).trimmingTrailingSpaces()
    }

    private func bars(_ counts: [Int], busiest: Int) -> String {
        let top = glyphs.levels.count - 1
        return String(
            counts.map { n -> Character in
                guard n > 0, busiest > 0 else { return glyphs.levels[0] }
                return glyphs.levels[min(top, max(1, Int((Double(n) * Double(top) / Double(busiest)).rounded(.up))))]
            })
    }

    /// The axis line with a tick at each label, and the labels under it.
    private func axis(_ timeline: ActivityTimeline) -> [String] {
        let ticks = TimeAxis.ticks(
            from: timeline.start, to: timeline.end, length: Double(layout.chartWidth), charWidth: 1, gap: 2, utc: utc)
        var line = [Character](repeating: glyphs.axis, count: layout.chartWidth)
        var labels = [Character](repeating: " ", count: layout.chartWidth + layout.countWidth + 1)
        var free = 0
        for tick in ticks {
            guard let column = timeline.bucket(of: tick.timestamp) else { continue }
            line[column] = glyphs.tick
            let text = Array(tick.label)
            guard column >= free, column + text.count <= labels.count else { continue }
            labels.replaceSubrange(column..<column + text.count, with: text)
            free = column + text.count + 1
        }
        let indent = String(repeating: " ", count: layout.labelWidth + 1)
        return [context.style(indent + String(line), .dim), (indent + String(labels)).trimmingTrailingSpaces()]
    }

    /// A marker's row: a dotted track with its glyph where it stands.
    /// What a marker's row draws at its place: its glyph, or an arrow beyond either end.
    private func mark(_ placement: TimelineMarker.Placement, _ marker: TimelineMarker) -> Character {
        placement == .beforeStart
            ? glyphs.before
            : placement == .afterEnd ? glyphs.after : marker.kind.isCutoff ? glyphs.cutoff : glyphs.actor
    }

    private func track(_ placement: TimelineMarker.Placement, _ marker: TimelineMarker) -> String {
        var cells = [Character](repeating: glyphs.track, count: layout.chartWidth)
        let column: Int
        switch placement {
        case .bucket(let b): column = b
        case .beforeStart: column = 0
        case .afterEnd: column = layout.chartWidth - 1
        case .nowhere: return context.style(String(cells), .dim)
        }
        let mark = mark(placement, marker)
        cells[column] = " "
        let before = String(cells[..<column])
        let after = String(cells[(column + 1)...])
        return context.style(before, .dim) + context.style(String(mark), marker.style) + context.style(after, .dim)
    }
}
