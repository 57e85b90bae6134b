import GRDB

/// Rows of `ACHANGE` in transaction-number order (``HistorySQL/changesOfTransactionsSelect()``,
/// ``ChangeCounts/select``: `ACHANGE`'s index on `ZTRANSACTIONID` gives them so) read beside
/// the transactions in the same order: one walk down the index where a select per transaction
/// would start over each time.
final class TransactionOrderedRows {
    let cursor: RawCursor
    /// The column holding a row's transaction number.
    private let numberColumn: Int32
    /// The cursor is on a row not handed out yet.
    private var positioned = false
    private var done = false

    init(_ cursor: RawCursor, numberColumn: Int32) {
        self.cursor = cursor
        self.numberColumn = numberColumn
    }

    /// Moves the cursor to transaction `number`'s next row: false when it has no more.
    /// Numbers must come in ascending order; rows of transactions skipped over are passed.
    func next(of number: Int64) throws -> Bool {
        while true {
            if !positioned {
                guard !done, try cursor.next() else {
                    done = true
                    return false
                }
                positioned = true
            }
            // A REAL number is no transaction's (NULL, TEXT and BLOB are outside the range).
            guard cursor.storageClass(numberColumn) == .integer else {
                positioned = false
                continue
            }
            let id = cursor.int64(numberColumn)
            if id > number { return false }
            positioned = false
            if id == number { return true }
        }
    }

    /// The transaction number of the next row after transaction `number`'s rows (the first
    /// row's with nil), leaving the cursor on it; nil when there is none.
    func nextNumber(after number: Int64?) throws -> Int64? {
        while true {
            if !positioned {
                guard !done, try cursor.next() else {
                    done = true
                    return nil
                }
                positioned = true
            }
            guard cursor.storageClass(numberColumn) == .integer else {
                positioned = false
                continue
            }
            let id = cursor.int64(numberColumn)
            if let number, id <= number {
                positioned = false
                continue
            }
            return id
        }
    }

    func finish() { cursor.finish() }
}
