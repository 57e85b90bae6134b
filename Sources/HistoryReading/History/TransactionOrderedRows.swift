import GRDB

/// Rows of `ACHANGE` in transaction-number order (``HistorySQL/changesOfTransactionsSelect()``,
/// ``ChangeCounts/select``: `ACHANGE`'s index on `ZTRANSACTIONID` gives them so) read beside
/// the transactions in the same order: one walk down the index where a select per transaction
/// would start over each time.
package final class TransactionOrderedRows {
    package let cursor: RawCursor
    /// The column holding a row's transaction number.
    private let numberColumn: Int32
    /// The cursor is on a row not handed out yet.
    private var positioned = false
    private var done = false

    package init(_ cursor: RawCursor, numberColumn: Int32) {
        self.cursor = cursor
        self.numberColumn = numberColumn
    }

    /// Moves the cursor to transaction `number`'s next row: false when it has no more.
    /// Numbers must come in ascending order; rows of transactions skipped over are passed.
    package func next(of number: Int64) throws -> Bool {
        while let id = try peek() {
            if id > number { return false }
            positioned = false
            if id == number { return true }
        }
        return false
    }

    /// The transaction number of the next row after transaction `number`'s rows (the first
    /// row's with nil), leaving the cursor on it; nil when there is none.
    func nextNumber(after number: Int64?) throws -> Int64? {
        while let id = try peek() {
            guard let number, id <= number else { return id }
            positioned = false
        }
        return nil
    }

    /// The transaction number of the row the cursor is on, moving to the next row first when
    /// that one was handed out; nil at the end. A REAL number is no transaction's (NULL, TEXT
    /// and BLOB are outside the range): such rows are passed.
    private func peek() throws -> Int64? {
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
            return cursor.int64(numberColumn)
        }
    }

    package func finish() { cursor.finish() }
}
