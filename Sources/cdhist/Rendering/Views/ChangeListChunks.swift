import HistoryKit

/// A chunk of a change list as compact JSON or NDJSON records: those that decode without a
/// warning written plain (from bytes formatted once per entity), the others decoded, each as
/// ``HistoryPresenter`` writes a change record.
struct ChangeListChunks {
    let presenter: HistoryPresenter
    let plain: PlainChangeWriter
    /// NDJSON: each record with the format's tag first.
    let tagged: Bool

    /// Adds the records of the changes `walk` reads to `records`.
    func format(_ walk: ChunkedWrite.ChangeWalk, _ records: inout ChunkRecords) throws {
        let tag = tagged ? jsonFormatTag : nil
        try walk({ change in
            try records.add { plain.json(change, tagged: tagged, to: &$0.bytes) }
        }, { change in
            records.warnings.add(change.warnings)
            try records.add { presenter.record(change).write(format: tag, to: &$0) }
        })
    }
}
