import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

@testable import CDHistCLI

/// A change or transaction list's CSV writes its plain rows from bytes (``PlainChangeWriter``,
/// ``PlainTransactionFields``): each chunk's rows must be, byte for byte, the rows of the same
/// changes and transactions written from their records (``CSVRecordRows``).
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
            let chunks = ListChunks(
                presenter: HistoryPresenter(time: TimeFormatter(utc: false)), storeUUID: store.storeUUID,
                tagged: false)
            let changeRows = chunks.changeCSV(
                writing: PlainChangeWriter(decoder: decoder, csvRaw: raw),
                CSVRecordRows(names: HistoryPresenter.changeRowCSVNames, raw: raw))
            try store.readChanges(HistoryQuery(), decoder: decoder, layout: Self.layout) { chunk in
                let fast = try Self.rows(path) { records in
                    try changeRows(chunk.forEach(withTransactions:decoded:), &records)
                }
                let decoded = try Self.rows(path) { records in
                    try changeRows(
                        { _, decoded in
                            try chunk.forEach(withTransactions: { try decoded($0.change, $1) }, decoded: decoded)
                        }, &records)
                }
                #expect(fast.text == decoded.text, "\(path) chunk \(chunk.index)")
                try chunk.forEach(
                    withTransactions: { _, tx in
                        if case .plain = tx { plainChanges.withLock { $0 += 1 } }
                    }, decoded: { _, _ in })
            }
            let transactionRows = chunks.transactionCSV(
                CSVRecordRows(names: HistoryPresenter.transactionCSVNames, raw: raw))
            try store.readTransactions(HistoryQuery(), decoder: nil, layout: Self.layout) { chunk in
                let fast = try Self.rows(path) { try transactionRows(chunk.forEach, &$0) }
                let decoded = try Self.rows(path) { records in
                    try transactionRows(
                        { _, decoded in
                            try chunk.forEach(
                                plain: { try decoded($0.transaction(storeUUID: store.storeUUID), $1) }, decoded: decoded
                            )
                        }, &records)
                }
                #expect(fast.text == decoded.text, "\(path) chunk \(chunk.index)")
                try chunk.forEach(plain: { _, _ in plainTransactions.withLock { $0 += 1 } }, decoded: { _, _ in })
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
