/// How a read of history is laid out over threads and reads
/// (``HistoryStore/readTransactions(_:decoder:layout:_:)``, ``HistoryStore/readChanges(_:decoder:layout:_:)``).
public enum ReadLayout: Equatable, Sendable {
    /// In chunks of about `span` consecutive transaction numbers, on one connection per core at
    /// once, when the read spans at least `minimum` numbers and is worth splitting; else whole.
    case split(minimum: Int64 = HistoryStore.chunkedReadMinimum, span: Int64 = HistoryStore.chunkSpan)
    /// Whole, in one read on the caller's thread (labels or values looked up in order need it).
    case oneRead
    /// Whole, on the caller's thread, a page of `size` transactions (or of one transaction's
    /// changes) at a time, each page in a read of its own: no read is open while the caller
    /// works, so a caller blocked on its output never stops an app from checkpointing its WAL.
    case pages(size: Int = HistoryStore.pageSize)
}
