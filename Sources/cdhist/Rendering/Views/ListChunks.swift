import HistoryKit

/// A chunk of a change or transaction list as compact JSON or NDJSON records, each as
/// ``HistoryPresenter`` writes a change or transaction record (a transaction without its
/// changes), or as table rows, each as the presenter's cells: those that read without a warning
/// written plain (from bytes formatted once per entity, or from a plain transaction's fields),
/// the others decoded.
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

    /// Adds the CSV rows of the changes a walk reads with their transactions to a chunk's
    /// records, under ``HistoryPresenter/changeRowCSVNames``: those of a plain change and a
    /// plain transaction written by `plain` and `fields`, the others from their records.
    func changeCSV(writing plain: PlainChangeWriter, _ rows: CSVRecordRows)
        -> (ChunkedWrite.ChangeTransactionWalk, inout ChunkRecords) throws -> Void
    {
        let presenter = presenter
        let storeUUID = storeUUID
        return { walk, records in
            var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: presenter, csvRaw: rows.raw)
            /// The transaction whose warnings were added last (each is added once, after its first change's).
            var warned: Int64?
            /// The cells of the plain transaction numbered `prefixNumber`, and the comma after them.
            var prefix: [UInt8] = []
            var prefixNumber: Int64?
            var sink = rows.makeSink()
            func decoded(_ change: Change, _ transaction: ChangeTransaction) throws {
                records.warnings.add(change.warnings)
                if case .decoded(let decoded) = transaction, warned != decoded.number {
                    records.warnings.add(decoded.warnings)
                    warned = decoded.number
                }
                let tx = transaction.transaction(storeUUID: storeUUID)
                try records.add {
                    rows.write(presenter.record(change, of: tx, notes: .none), through: &sink, to: &$0.bytes)
                }
            }
            try walk(
                { change, transaction in
                    guard case .plain(let tx) = transaction, plain.writesListCSV(change) else {
                        return try decoded(change.change, transaction)
                    }
                    // A transaction's cells are formatted once for all of its changes.
                    if prefixNumber != tx.number {
                        prefix.removeAll(keepingCapacity: true)
                        fields.writeCSV(tx, to: &prefix)
                        prefix.append(UInt8(ascii: ","))
                        prefixNumber = tx.number
                    }
                    try records.add { line in
                        line.bytes += prefix
                        plain.listCSV(change, to: &line.bytes)
                    }
                }, decoded)
        }
    }

    /// Adds the CSV rows of the transactions a walk reads to a chunk's records, under
    /// ``HistoryPresenter/transactionCSVNames``.
    func transactionCSV(_ rows: CSVRecordRows) -> (ChunkedWrite.Walk, inout ChunkRecords) throws -> Void {
        let presenter = presenter
        let storeUUID = storeUUID
        return { walk, records in
            var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: presenter, csvRaw: rows.raw)
            var sink = rows.makeSink()
            try walk(
                { tx, _ in try records.add { fields.writeListCSV(tx, to: &$0.bytes) } },
                { tx, _ in
                    records.warnings.add(tx.warnings)
                    try records.add { rows.write(presenter.record(tx), through: &sink, to: &$0.bytes) }
                })
        }
    }

    /// The first rows of a change table of `query` (without labels or values), which lay it out.
    func changeSample(_ store: HistoryStore, _ query: HistoryQuery, decoder: ChangeDecoder, color: Bool) throws
        -> TableSample
    {
        var sample = TableSample(store: store.path, of: query)
        try store.readChanges(TableSample.query(query), decoder: decoder, layout: .oneRead) {
            try $0.forEach {
                sample.add(
                    presenter.cells($0, color: color, notes: .none), warnings: $0.warnings,
                    transaction: $0.transactionNumber, change: $0.changeID)
            }
        }
        return sample
    }

    /// Writes the rows of the changes a walk reads after `sample`'s to a chunk of a change table
    /// (without labels or values), the plain ones from the cells `plain` writes.
    func changeRows(after sample: TableSample, writing plain: PlainChangeWriter, color: Bool)
        -> (ChunkedWrite.ChangeWalk, TableRowWriter, inout ChunkRecords) throws -> Void
    {
        let presenter = presenter
        return { walk, writer, records in
            var row = PlainRow()
            try walk(
                { change in
                    guard !sample.holds(change.transactionNumber, change.changeID) else { return }
                    try records.add { line in
                        row.reset()
                        plain.tableCells(change, to: &row)
                        writer.write(
                            &row, orCells: { presenter.cells(change.change, color: color, notes: .none) },
                            to: &line.bytes)
                    }
                },
                { change in
                    guard !sample.holds(change.transactionNumber, change.changeID) else { return }
                    records.warnings.add(change.warnings)
                    try records.add { writer.write(presenter.cells(change, color: color, notes: .none), to: &$0.bytes) }
                })
        }
    }

    /// The first rows of a transaction table of `query`, which lay it out.
    func transactionSample(_ store: HistoryStore, _ query: HistoryQuery) throws -> TableSample {
        var sample = TableSample(store: store.path, of: query)
        try store.readTransactions(TableSample.query(query), decoder: nil, layout: .oneRead) {
            try $0.forEach { tx, _ in sample.add(presenter.cells(tx), warnings: tx.warnings, transaction: tx.number) }
        }
        return sample
    }

    /// Writes the rows of the transactions a walk reads after `sample`'s to a chunk of a
    /// transaction table.
    func transactionRows(after sample: TableSample)
        -> (ChunkedWrite.Walk, TableRowWriter, inout ChunkRecords) throws -> Void
    {
        { walk, writer, records in try transactionRows(walk, after: sample, writer, &records) }
    }

    private func transactionRows(
        _ walk: ChunkedWrite.Walk, after sample: TableSample, _ writer: TableRowWriter, _ records: inout ChunkRecords
    ) throws {
        var fields = PlainTransactionFields(storeUUID: storeUUID, presenter: presenter, csvRaw: false)
        var row = PlainRow()
        try walk(
            { tx, _ in
                guard !sample.holds(tx.number) else { return }
                try records.add { line in
                    row.reset()
                    fields.tableCells(tx, to: &row)
                    writer.write(
                        &row, orCells: { presenter.cells(tx.transaction(storeUUID: storeUUID)) }, to: &line.bytes)
                }
            },
            { tx, _ in
                guard !sample.holds(tx.number) else { return }
                records.warnings.add(tx.warnings)
                try records.add { writer.write(presenter.cells(tx), to: &$0.bytes) }
            })
    }
}
