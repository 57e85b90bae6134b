import HistoryKit

/// The first rows of a streamed table, as cells: its layout is made from them
/// (``TableLayout``), and the table is written from them alone when they are all of its rows.
struct TableSample {
    /// Rows a streamed table is laid out from.
    static let rowCount = 200
    private(set) var rows: [[Cell]] = []
    /// The warnings of their values (told when the sample is the whole table; else its rows are
    /// read again with the others).
    let warnings: ValueWarnings
    /// Whether the rows are the whole table: fewer than ``rowCount``, or all the query asks for.
    private(set) var isWhole = false

    init(store: String) { warnings = ValueWarnings(store: store) }

    /// `query` cut to the rows of a sample.
    static func query(_ query: HistoryQuery) -> HistoryQuery {
        var sample = query
        sample.limit = min(query.limit ?? rowCount, rowCount)
        return sample
    }

    mutating func add(_ cells: [Cell], warnings: [DecodingWarning]) {
        rows.append(cells)
        self.warnings.add(warnings)
    }

    /// Ends a sample read with ``query(_:)`` from `query`.
    mutating func finish(_ query: HistoryQuery) {
        isWhole = rows.count < Self.rowCount || (query.limit ?? .max) <= Self.rowCount
    }
}
