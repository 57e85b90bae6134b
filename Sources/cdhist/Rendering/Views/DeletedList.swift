import HistoryKit

/// `deleted`'s output, streamed: one list in JSON, NDJSON and CSV (whose `status` tells the two
/// kinds apart); in a table, the deletions, then under a title of their own the objects gone
/// without a recorded delete, with their last change.
final class DeletedList {
    private let context: RenderContext
    private let presenter: DeletedPresenter
    private let bounds: NumberBounds
    private var list: ListRenderer
    private var showingGone = false

    init(context: RenderContext, presenter: DeletedPresenter, bounds: NumberBounds, header: [(String, JSONValue)]) {
        self.context = context
        self.presenter = presenter
        self.bounds = bounds
        list = ListRenderer(context: context, kind: "deleted", columns: presenter.columns(bounds, kind: .deleted), header: header)
    }

    func add(_ object: DeletedObject, label: String?) {
        if context.format == .table, object.kind == .goneWithoutDelete, !showingGone {
            showingGone = true
            if list.added > 0 {
                list.finish()
                context.output.line("")
            }
            for line in DocumentRenderer.wrapped(DeletedPresenter.goneTitle, context) { context.output.line(context.style(line, .bold)) }
            list = ListRenderer(context: context, kind: "deleted", columns: presenter.columns(bounds, kind: .goneWithoutDelete))
        }
        list.add(presenter.record(object, label: label))
    }

    func finish() { list.finish() }
}
