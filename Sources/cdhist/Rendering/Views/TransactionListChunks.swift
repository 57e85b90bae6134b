import HistoryKit

/// A chunk of a transaction list as compact JSON or NDJSON records: plain transactions from
/// their fields (``PlainTransactionFields``), the others decoded, each as ``HistoryPresenter``
/// writes a transaction record (without its changes).
struct TransactionListChunks {
    let presenter: HistoryPresenter
    let storeUUID: String
    /// NDJSON: each record with the format's tag first.
    let tagged: Bool

    /// Adds the records of the transactions `walk` reads to `records`.
    func format(_ walk: ChunkedWrite.Walk, _ records: inout ChunkRecords) throws {
        let tag = tagged ? jsonFormatTag : nil
        var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: presenter, csvRaw: false)
        try walk({ tx, _ in
            try records.add { line in
                fields.writeJSON(tx, format: tag, to: &line)
                line.endObject()
            }
        }, { tx, _ in
            records.warnings.add(tx.warnings)
            try records.add { presenter.record(tx).write(format: tag, to: &$0) }
        })
    }
}
