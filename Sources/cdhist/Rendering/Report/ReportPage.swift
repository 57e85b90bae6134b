import Foundation
import HistoryKit

/// The diagnosis report: one self-contained HTML page (inline CSS and SVG, no
/// script, nothing fetched) made of what the commands present: a summary,
/// the timeline, the actors, a purge preview, the health check, the busiest
/// authors and entities, and the store's details.
struct ReportPage {
    /// Everything the page shows.
    struct Content {
        var storePath: String
        var now: Double
        var statistics: HistoryStatistics
        /// `info`'s document.
        var summary: Document
        var timeline: ActivityTimeline
        var markers: [TimelineMarker]
        var mergeState: MergeStateReport
        /// `actors`' document.
        var actors: Document
        /// The chosen purge and `purge`'s document of it; nil when none was chosen.
        var purge: (rule: String, preview: PurgePreview, document: Document)?
        var findings: [Finding]
        /// `check`'s document.
        var check: Document
        /// CloudKit mirroring, when the store is mirrored.
        var cloudKit: CloudKitStatus
        /// Authors with their change counts.
        var authors: [FieldSummary]
        /// Entities with their change counts.
        var entities: [(name: String, counts: EntityChangeCounts)]
        /// The save the store is read at (nil: as it is).
        var atSave: SaveStamp?
    }

    let time: TimeFormatter
    let svg: TimelineSVG
    /// Rows of the author and entity tables.
    static let topCount = 10

    /// The page of `c`, ending with the examination's record (`evidence`: its hashes, and how the store was opened).
    func html(_ c: Content, evidence: (exam: Examination, access: StoreAccess)) -> String {
        let name = URL(fileURLWithPath: c.storePath).lastPathComponent
        var body = "<header>\n<h1>History report: \(HTML.escape(name))</h1>\n"
        body +=
            """
            <p class=\"subtitle\">\(HTML.escape(c.storePath)) · as of \(HTML.escape(time.display(c.now))) · \
            cdhist \(ToolVersion.number)</p>\n
            """
        if let stamp = c.atSave {
            body += "<p class=\"subtitle\"><strong>\(HTML.escape(stamp.sentence))</strong></p>\n"
        }
        body += "</header>\n"
        // The picture first, the details after.
        body += section("glance", "At a glance", HTML.sections([.fields(title: nil, glance(c))]))
        body += section(
            "timeline", "Timeline", "<figure>\n" + svg.svg(c.timeline, markers: c.markers) + legend(c) + "</figure>\n")
        body += section("actors", "Actors", HTML.sections(c.actors.sections))
        if c.cloudKit.state != nil {
            body += section(
                "cloudkit", "CloudKit mirroring",
                HTML.sections(CloudKitPresenter(time: time, now: c.now).document(c.cloudKit).sections))
        }
        body += section(
            "purge", "Purge preview",
            c.purge.map { HTML.sections($0.document.sections) }
                ?? """
                <p class=\"note\">No purge chosen: make the report with --strategy NAME or --before POSITION to \
                see what it would delete and break.</p>\n
                """
        )
        body += section("check", "Health check", HTML.sections(c.check.sections))
        body += section("busiest", "Busiest authors and entities", busiest(c))
        body += section("store", "Store", HTML.sections(c.summary.sections))
        body += section(
            "evidence", "Evidence",
            HTML.sections(EvidencePresenter(time: time).sections(evidence.exam, access: evidence.access)))
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>History report: \(HTML.escape(name))</title>
            <style>
            \(Self.css)
            </style>
            </head>
            <body>
            <main>
            \(body)<footer><p class="note">Made by cdhist \(ToolVersion.number) without changing the store.</p></footer>
            </main>
            </body>
            </html>

            """
    }

    private func section(_ id: String, _ title: String, _ content: String) -> String {
        "<section id=\"\(id)\">\n<h2>\(HTML.escape(title))</h2>\n\(content)</section>\n"
    }

    /// The few lines a reader needs first.
    private func glance(_ c: Content) -> [(String, String)] {
        let s = c.statistics
        var history =
            """
            \(plural(s.transactionCount, "transaction")) and \(plural(s.changeCount, "change")) by \
            \(plural(c.authors.filter { $0.value != nil }.count, "author"))
            """
        if let anonymous = c.authors.first(where: { $0.value == nil }) {
            history += " (\(plural(anonymous.transactionCount, "transaction")) without an author)"
        }
        if let range = s.timestamps {
            history += ", \(time.display(range.lowerBound)) to \(time.display(range.upperBound))"
        }
        // What matters first: who is broken, then every actor's status, then the writers.
        let actors = c.mergeState.actors
        let statuses = ActorStatus.allCases.compactMap { status -> String? in
            let n = actors.filter { $0.status == status }.count
            return n > 0 ? (actors.count == 1 ? status.rawValue : "\(n) \(status.rawValue)") : nil
        }
        let broken = actors.filter(\.status.isBroken).map { "\($0.name) (\($0.status.rawValue))" }
        var parts: [String] = []
        if !broken.isEmpty { parts.append("Core Data fails or loses changes for \(broken.joined(separator: ", "))") }
        parts.append(
            actors.isEmpty
                ? "no actor known (give --defaults, --token or --group-container)"
                : "\(plural(actors.count, "actor")), \(statuses.joined(separator: ", "))")
        let writers = c.mergeState.writers.filter { $0.author != nil }.count
        if writers > 0 { parts.append("\(plural(writers, "writer")) without merge state") }
        for r in c.mergeState.hiddenReaders { parts.append("also read by \(r.name), whose position no file shows") }
        let actorText = parts.joined(separator: " · ")
        let purge =
            c.purge.map { p in
                """
                \(p.rule): would delete \(plural(p.preview.transactionCount, "transaction")) and \
                \(plural(p.preview.changeCount, "change"))
                """
                    + (p.preview.consequences.isEmpty
                        ? "; breaks no known actor"
                        : """
                        ; breaks \
                        \(p.preview.consequences.map { "\($0.actor) (\($0.status.rawValue))" }.joined(separator: ", "))
                        """)
                    + p.preview.hiddenReaders.map { "; may break \($0.name) (a full re-index)" }.joined()
            } ?? "none chosen"
        let severities = Severity.allCases.reversed().compactMap { severity -> String? in
            let n = c.findings.filter { $0.severity == severity }.count
            return n > 0 ? CheckPresenter.counted(n, severity) : nil
        }
        var lines = [("History", history), ("Actors", actorText)]
        if let state = c.cloudKit.state, let exporter = c.cloudKit.exporter {
            var text = "\(exporter.status.rawValue)" + (exporter.tokenNumber.map { " at #\($0)" } ?? "")
            if exporter.pending.count > 0 { text += ", \(plural(exporter.pending.count, "transaction")) to export" }
            if let r = state.records {
                text += "; \(plural(r.mirrored, "mirrored record"))"
                let waiting = (r.needsUpload ?? 0) + (r.needsCloudDelete ?? 0)
                if waiting > 0 { text += ", \(waiting) awaiting upload or deletion in iCloud" }
            }
            lines.append(("CloudKit", text))
        }
        return lines + [
            ("Purge", purge), ("Health check", severities.isEmpty ? "no findings" : severities.joined(separator: ", ")),
        ]
    }

    /// What the bars and the markers mean, with each marker's detail.
    private func legend(_ c: Content) -> String {
        let t = c.timeline
        guard t.range != nil else { return "" }
        var out =
            """
            <figcaption>\n<p>Bars: transactions by each author in one bucket of \
            \(HTML.escape(MergeStatePresenter.age(t.bucketSeconds))); 
            """
            + "the tallest is \(plural(t.topLanes(svg.top).lanes.flatMap(\.counts).max() ?? 0, "transaction")). "
                + """
                Lines: where each actor has merged up to, and the purge cut-off (dashed); an arrow at an edge: before \
                the first or after the last transaction.</p>\n
                """
        if t.undatedCount > 0 {
            out +=
                """
                <p class=\"note\">\(plural(t.undatedCount, "transaction")) without a usable timestamp are not \
                drawn.</p>\n
                """
        }
        if !c.markers.isEmpty {
            out += "<ul class=\"markers\">\n"
            for m in c.markers {
                out += "<li>\(HTML.cell(m.name, style: m.style)) \(HTML.escape(m.detail))</li>\n"
            }
            out += "</ul>\n"
        }
        return out + "</figcaption>\n"
    }

    /// Changes per entity by name; changes whose ZENTITY is not an integer on a row of their own.
    static func entityRows(_ tally: EntityChangeTally, catalog: EntityCatalog) -> [(
        name: String, counts: EntityChangeCounts
    )] {
        var rows = tally.byEntity.map { number, counts in
            (name: catalog.entity(number: number)?.name ?? "Z_ENT \(number)", counts: counts)
        }
        if tally.withoutEntityNumber.total > 0 {
            rows.append((name: "(ZENTITY not an integer)", counts: tally.withoutEntityNumber))
        }
        return rows
    }

    private func busiest(_ c: Content) -> String {
        // A framework's many authors (a migration per model version) share a row, as in `authors`.
        let sorted = c.authors.sorted { ($1.changeCount, $0.value ?? "") < ($0.changeCount, $1.value ?? "") }
        let authors = ListSummary.grouped(sorted, author: \.value, families: ListSummary.frameworkFamilies)
            .sortedDescending(by: { $0.members.reduce(0) { $0 + $1.changeCount } }).prefix(Self.topCount)
        let entities = c.entities.sorted { ($1.counts.total, $0.name) < ($0.counts.total, $1.name) }.prefix(
            Self.topCount)
        return HTML.sections([
            .table(
                title: "Authors by changes",
                columns: [
                    Column("Author"), Column("Changes", alignRight: true), Column("Transactions", alignRight: true),
                    Column("Last"),
                ],
                rows: authors.map { g in
                    [
                        g.family == nil ? HistoryPresenter.optional(g.members.first?.value) : Cell(g.label),
                        Cell(String(g.members.reduce(0) { $0 + $1.changeCount })),
                        Cell(String(g.members.reduce(0) { $0 + $1.transactionCount })),
                        Cell(time.display(g.members.compactMap(\.lastTimestamp).max())),
                    ]
                }),
            .table(
                title: "Entities by changes",
                columns: [
                    Column("Entity"), Column("Changes", alignRight: true), Column("Inserts", alignRight: true),
                    Column("Updates", alignRight: true), Column("Deletes", alignRight: true),
                ],
                rows: entities.map { e in
                    [
                        Cell(e.name), Cell(String(e.counts.total)), Cell(String(e.counts.inserts)),
                        Cell(String(e.counts.updates)), Cell(String(e.counts.deletes)),
                    ]
                }),
        ])
    }

    /// Readable at laptop width, printable to PDF: system fonts, tables that
    /// wrap or scroll, status badges with a symbol and a border besides their
    /// colour (contrast at least 4.5:1), no background needed to read it.
    static let css = """
        :root { color-scheme: light; }
        body { margin: 0; background: #fff; color: #1f2328;
               font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Helvetica Neue", Arial, \
        sans-serif; }
        main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 40px; }
        h1 { font-size: 1.7em; margin: 0 0 2px; }
        h2 { font-size: 1.3em; margin: 1.8em 0 0.6em; padding-bottom: 4px; border-bottom: 1px solid #d0d7de; }
        h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
        .subtitle, .note, figcaption { color: #57606a; }
        .subtitle { margin: 0; overflow-wrap: anywhere; }
        dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0.4em 0; }
        dl.fields dt { font-weight: 600; color: #57606a; }
        dl.fields dd { margin: 0; overflow-wrap: break-word; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
        th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #d8dee4; \
        overflow-wrap: break-word; }
        th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
        .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .badge { display: inline-block; padding: 0 6px; border: 1px solid; border-radius: 4px; font-weight: 600; \
        white-space: nowrap; }
        .badge.long { white-space: normal; max-width: 100%; }
        .ok { color: #14532d; background: #e6f4ea; border-color: #1a7f37; }
        .warn { color: #5c3c00; background: #fff4d6; border-color: #8a5a00; }
        .bad { color: #7f1d1d; background: #fde8e8; border-color: #c11f2b; }
        .dim { color: #57606a; }
        figure { margin: 0; }
        svg.timeline { display: block; width: 100%; height: auto; font-family: inherit; }
        svg.timeline .num { font-variant-numeric: tabular-nums; }
        ul.markers { list-style: none; padding: 0; margin: 0.4em 0; }
        ul.markers li { margin: 2px 0; }
        footer { margin-top: 2.5em; border-top: 1px solid #d0d7de; }
        @media (max-width: 700px) { main { padding: 16px; } dl.fields { grid-template-columns: 1fr; } dl.fields dd { \
        margin-bottom: 6px; } }
        @media print {
          @page { margin: 14mm; }
          body { font-size: 10pt; }
          main { max-width: none; padding: 0; }
          h2 { break-after: avoid; page-break-after: avoid; }
          h3 { break-after: avoid; page-break-after: avoid; }
          tr, figure, dl.fields, ul.markers li { break-inside: avoid; page-break-inside: avoid; }
          .scroll { overflow: visible; }
          th { background: none; }
          * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        }
        """
}
