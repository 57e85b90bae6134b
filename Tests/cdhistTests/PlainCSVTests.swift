import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

@testable import CDHistCLI

/// A change or transaction list's CSV writes its plain rows from bytes (``PlainChangeWriter``,
/// ``PlainTransactionFields``) and its other rows as their records write themselves
/// (``CSVRowSink``): each chunk's rows must be, byte for byte, the rows of the same changes and
/// transactions made from their records' value trees (``CSVRecord``).
@Suite struct PlainCSVTests {
    /// Read in chunks of a few transactions however small the store (a whole read is decoded).
    private static let layout = ReadLayout.split(minimum: 1, span: 8)

    /// A chunk's CSV rows, and the warnings seen.
    private static func rows(
        _ store: String, _ format: (inout ChunkRecords) throws -> Void
    ) throws -> (text: String, warnings: ValueWarnings) {
        var records = ChunkRecords(spill: { _ in }, separator: [], terminator: [0x0A], store: store)
        try format(&records)
        return (String(decoding: records.line.bytes, as: UTF8.self), records.warnings)
    }

    @Test(arguments: [false, true]) func plainRowsAreTheRecordsRows(raw: Bool) throws {
        let plainChanges = Locked(0)
        let plainTransactions = Locked(0)
        for path in PlainTableTests.stores {
            let store = try HistoryStore.open(path)
            let decoder = store.makeDecoder(model: try store.resolveModel())
            let presenter = HistoryPresenter(time: TimeFormatter(utc: false))
            let chunks = ListChunks(presenter: presenter, storeUUID: store.storeUUID, tagged: false)
            let changeRows = chunks.changeCSV(
                writing: PlainChangeWriter(decoder: decoder, csvRaw: raw),
                CSVRecordRows(names: HistoryPresenter.changeRowCSVNames, raw: raw))
            /// A record's row as a CSV list of records makes it from its value tree.
            func row(_ record: some JSONRecord, under names: [String]) -> String {
                var row: [UInt8] = []
                CSVRecord.row(record.json, under: names, raw: raw, to: &row)
                return String(decoding: row, as: UTF8.self) + "\n"
            }
            try store.readChanges(HistoryQuery(), decoder: decoder, layout: Self.layout) { chunk in
                let fast = try Self.rows(path) { records in
                    try changeRows(chunk.forEach(withTransactions:decoded:), &records)
                }
                var reference = ""
                func add(_ change: Change, _ tx: ChangeTransaction) {
                    if case .plain = tx { plainChanges.withLock { $0 += 1 } }
                    reference += row(
                        presenter.record(change, of: tx.transaction(storeUUID: store.storeUUID), notes: .none),
                        under: HistoryPresenter.changeRowCSVNames)
                }
                try chunk.forEach(withTransactions: { add($0.change, $1) }, decoded: add)
                #expect(fast.text == reference, "\(path) chunk \(chunk.index)")
            }
            let transactionRows = chunks.transactionCSV(
                CSVRecordRows(names: HistoryPresenter.transactionCSVNames, raw: raw))
            try store.readTransactions(HistoryQuery(), decoder: nil, layout: Self.layout) { chunk in
                let fast = try Self.rows(path) { try transactionRows(chunk.forEach, &$0) }
                var reference = ""
                try chunk.forEach(
                    plain: { tx, _ in
                        plainTransactions.withLock { $0 += 1 }
                        reference += row(
                            presenter.record(tx.transaction(storeUUID: store.storeUUID)),
                            under: HistoryPresenter.transactionCSVNames)
                    },
                    decoded: { tx, _ in
                        reference += row(presenter.record(tx), under: HistoryPresenter.transactionCSVNames)
                    })
                #expect(fast.text == reference, "\(path) chunk \(chunk.index)")
            }
        }
        // Most of the fixtures' changes and transactions are plain (else this would try little).
        let changes = plainChanges.withLock { $0 }, transactions = plainTransactions.withLock { $0 }
        #expect(changes > 500, "\(changes) changes of plain transactions")
        #expect(transactions > 100, "\(transactions) plain transactions")
    }

    /// A list's header is its records' members.
    @Test func headersAreTheRecordsMembers() throws {
        let store = try HistoryStore.open(Repository.fixtures + "/AppGroup/Tasks.sqlite")
        let decoder = store.makeDecoder(model: try store.resolveModel())
        let presenter = HistoryPresenter(time: TimeFormatter(utc: false))
        var checked = 0
        try store.readChanges(HistoryQuery(), decoder: decoder, layout: .oneRead) { chunk in
            try chunk.forEach(
                withTransactions: { _, _ in },
                decoded: { change, tx in
                    let record = presenter.record(change, of: tx.transaction(storeUUID: store.storeUUID), notes: .none)
                    #expect(
                        CSVRecord.members(record.json).map(\.name) + ["warnings"] == HistoryPresenter.changeRowCSVNames)
                    let transaction = presenter.record(try #require(tx.transaction(storeUUID: store.storeUUID)))
                    #expect(
                        CSVRecord.members(transaction.json).map(\.name) + ["warnings"]
                            == HistoryPresenter.transactionCSVNames)
                    checked += 1
                })
        }
        #expect(checked > 10)
    }
}
