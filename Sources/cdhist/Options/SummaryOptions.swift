import ArgumentParser

/// `--all`: long lists in full instead of their first rows.
struct SummaryOptions: ParsableArguments {
    @Flag(
        help:
            """
            In tables, show every row of long lists and every author of a framework family, not the first few and \
            a count of the rest (JSON and CSV always have them all).
            """
    )
    var all = false

    /// Rows a table shows of a long list: nil for all (asked for, or not a table).
    func limit(_ context: RenderContext, rows: Int = ListSummary.rows) -> Int? {
        all || context.format != .table ? nil : rows
    }

    /// Whether tables group a framework family's authors in one row.
    func groupsFamilies(_ context: RenderContext) -> Bool { !all && context.format == .table }
}
