import HistoryKit

/// A chunk of a change or transaction list as compact JSON or NDJSON records, each as
/// ``HistoryPresenter`` writes a change or transaction record (a transaction without its
/// changes): those that read without a warning written plain (from bytes formatted once per
/// entity, or from a plain transaction's fields), the others decoded.
struct ListChunks {
    let presenter: HistoryPresenter
    let storeUUID: String
    /// NDJSON: each record with the format's tag first.
    let tagged: Bool

    /// Adds the records of the changes a walk reads to a chunk's records, the plain ones
    /// written by `plain`.
    func changes(writing plain: PlainChangeWriter) -> (ChunkedWrite.ChangeWalk, inout ChunkRecords) throws -> Void {
        let tag = tagged ? jsonFormatTag : nil
        let tagged = tagged
        let presenter = presenter
        return { walk, records in
            try walk(
                { change in
                    try records.add { plain.json(change, tagged: tagged, to: &$0.bytes) }
                },
                { change in
                    records.warnings.add(change.warnings)
                    try records.add { presenter.record(change, notes: .none).write(format: tag, to: &$0) }
                })
        }
    }

    /// Adds the records of the transactions `walk` reads to `records`.
    func transactions(_ walk: ChunkedWrite.Walk, _ records: inout ChunkRecords) throws {
        let tag = tagged ? jsonFormatTag : nil
        var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: presenter, csvRaw: false)
        try walk(
            { tx, _ in
                try records.add { line in
                    fields.writeJSON(tx, format: tag, to: &line)
                    line.endObject()
                }
            },
            { tx, _ in
                records.warnings.add(tx.warnings)
                try records.add { presenter.record(tx).write(format: tag, to: &$0) }
            })
    }
}
