import HistoryKit

/// `deleted`'s output, streamed: one list in JSON, NDJSON and CSV (whose `status` tells the two
/// kinds apart; JSON gives the per-entity summary before it); in a table, the summary per
/// entity, the deletions, then under a title of their own the objects gone without a recorded
/// delete, with their last change, and what was left out.
final class DeletedList {
    private let context: RenderContext
    private let presenter: DeletedPresenter
    private let bounds: NumberBounds
    private let summary: DeletionSummary
    private var list: ListRenderer
    private var showingGone = false

    /// `summary`: what the whole list holds (the table's first lines, a member of the JSON
    /// document); the objects added may be fewer.
    init(
        context: RenderContext, presenter: DeletedPresenter, bounds: NumberBounds, summary: DeletionSummary,
        header: [(String, JSONValue)]
    ) {
        self.context = context
        self.presenter = presenter
        self.bounds = bounds
        self.summary = summary
        if context.format == .table {
            Self.writeSummary(summary, presenter: presenter, context: context)
        }
        list = ListRenderer(
            context: context, kind: "deleted", columns: presenter.columns(bounds, kind: .deleted),
            header: header + [("entities", DeletedPresenter.summaryJSON(summary))])
    }

    /// The headline and the table of entities, and a blank line before the list.
    private static func writeSummary(_ summary: DeletionSummary, presenter: DeletedPresenter, context: RenderContext) {
        for line in DocumentRenderer.wrapped(DeletedPresenter.headline(summary), context) { context.output.line(line) }
        guard !summary.entities.isEmpty else { return }
        context.output.line("")
        let table = ListRenderer(context: context, kind: "entities", columns: DeletedPresenter.summaryColumns)
        for entity in summary.entities { table.add(cells: presenter.summaryCells(entity)) }
        table.finish()
        context.output.line("")
    }

    func add(_ object: DeletedObject, label: String?) {
        if context.format == .table, object.kind == .goneWithoutDelete, !showingGone {
            showingGone = true
            if list.added > 0 {
                list.finish()
                context.output.line("")
            }
            for line in DocumentRenderer.wrapped(DeletedPresenter.goneTitle, context) {
                context.output.line(context.style(line, .bold))
            }
            list = ListRenderer(
                context: context, kind: "deleted", columns: presenter.columns(bounds, kind: .goneWithoutDelete))
        }
        list.add(presenter.record(object, label: label))
    }

    /// Ends the list; in a table, says how many of the objects it showed and how to see the rest
    /// (`perEntity`: the rows of each entity a table shows, nil for all; `limit`: `--limit`).
    func finish(shown: Int, perEntity: Int?, limit: Int?) {
        list.finish()
        let total = summary.deleted + summary.goneWithoutDelete
        guard context.format == .table, shown < total,
            let why = limit.map({ "--limit \($0)" })
                ?? perEntity.map({ "the first \($0) of each entity, deleted and gone" })
        else { return }
        context.output.line("")
        let text =
            """
            Shown: \(shown) of \(total) objects (\(why)): --all lists every one, --entity NAME one entity's, \
            --format json each with its tombstone.
            """
        for line in DocumentRenderer.wrapped(text, context) { context.output.line(context.style(line, .dim)) }
    }
}
