import HistoryKit

extension ReportPage.Content {
    /// The page's content from what the diagnosis found: each section is the document the
    /// matching command presents (`info`, `actors`, `purge`, `check`), so the page says what they say.
    /// `report` is the diagnosis' merge state (analysed for a page, so always there).
    /// `all`: every strategy on its own row in the actors' table, as `actors --all`.
    init(
        _ d: Diagnosis, mergeState report: MergeStateReport, store: HistoryStore, path: String, now: Double,
        time: TimeFormatter, all: Bool, atSave: SaveStamp?
    ) {
        let statistics = d.check.context.statistics
        self.init(
            storePath: path, now: now, statistics: statistics,
            summary: InfoPresenter(time: time).document(store: store, stats: statistics, model: d.check.context.model),
            timeline: d.timeline,
            markers: TimelineMarker.all(
                actors: report.actors, cutoff: d.purge.map { ($0.selection.rule, d.cutoffTimestamp) }, time: time,
                now: now),
            mergeState: report,
            actors: MergeStatePresenter(time: time, now: now, all: all).document(
                report, store: store, sources: d.check.mergeState.sources),
            purge: d.purge.map { p in
                let actors = p.plan.actorsChecked
                let document = PurgePresenter(time: time).preview(
                    p.plan.preview, store: path, rule: p.selection.rule, executing: false,
                    actors: actors == 0 ? nil : actors)
                return (p.selection.rule, p.plan.preview, document)
            },
            findings: d.check.findings,
            check: CheckPresenter.document(
                d.check.findings, store: store, threshold: d.check.threshold, failing: d.check.failing.count),
            cloudKit: d.cloudKit, authors: d.authors,
            entities: ReportPage.entityRows(d.entities, catalog: store.catalog), atSave: atSave)
    }
}
