import HistoryKit

/// The first rows of a streamed table, as cells: its layout is made from them
/// (``TableLayout``), they are written at once (the first screen does not wait for the rest),
/// and the rest of the table is read after them: the rows at or before the last one's place are
/// passed over (``holds(_:_:)``).
struct TableSample {
    /// Rows a streamed table is laid out from.
    static let rowCount = 200
    private(set) var rows: [[Cell]] = []
    /// The warnings of their values.
    let warnings: ValueWarnings
    /// Whether the rows are the whole table: fewer than ``rowCount``, or all the query asks for.
    var isWhole: Bool { rows.count < Self.rowCount || (limit ?? .max) <= Self.rowCount }
    private let limit: Int?
    /// The last row's place: its transaction's number, and its change ID in a change list.
    private var last: (transaction: Int64, change: Int64)?
    private let descending: Bool

    /// The sample of a table of `query`'s rows.
    init(store: String, of query: HistoryQuery) {
        warnings = ValueWarnings(store: store)
        descending = query.order == .descending
        limit = query.limit
    }

    /// `query` cut to the rows of a sample.
    static func query(_ query: HistoryQuery) -> HistoryQuery {
        var sample = query
        sample.limit = min(query.limit ?? rowCount, rowCount)
        return sample
    }

    /// Adds a row, read at transaction `transaction` (and change `change` in a change list).
    mutating func add(_ cells: [Cell], warnings: [DecodingWarning], transaction: Int64, change: Int64 = 0) {
        rows.append(cells)
        self.warnings.add(warnings)
        last = (transaction, change)
    }

    /// Whether the row at transaction `transaction` (and change `change`) is one of the sample's:
    /// at or before the last one's place in the query's order (transaction numbers, then change
    /// IDs within a transaction).
    func holds(_ transaction: Int64, _ change: Int64 = 0) -> Bool {
        guard let last else { return false }
        return descending
            ? (transaction, change) >= (last.transaction, last.change)
            : (transaction, change) <= (last.transaction, last.change)
    }
}
