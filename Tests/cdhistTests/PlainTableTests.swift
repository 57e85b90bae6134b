import Foundation
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

@testable import CDHistCLI

/// A long table writes its plain rows (``PlainRow``) from bytes, without making text of their
/// cells: what it writes must be what the layout writes from the same row's cells, and the
/// cells a plain change or transaction gives must be the presenter's.
@Suite struct PlainTableTests {
    /// Reproducible random numbers (SplitMix64).
    private struct Numbers {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// Words of every kind a table treats apart: dates and times (kept whole), zones, marks a
    /// long word breaks at, a dash (an empty value under a row), words longer than any column;
    /// and, less often, words a plain row cannot hold: a digest's brace, wide and combining
    /// characters, control characters.
    private static let words = [
        "a", "bb", "name", "modificationDate", "modificationDateForSorting", "f106,", "2025-03-03", "09:00:00.000",
        "+01:00", "-05:30", "-", "/Users/me/Library/Group Containers/x/Photos.sqlite", "sel:with:colons:",
        "title=\"Item", "12345", "9999999999", String(repeating: "x", count: 90), "",
    ]
    private static let oddWords = [
        "{", "{ 9H63MTM4MlsZ3c8dAAAAAAAAAAAAAAAAAAAAAAAAAAAA }", "é", "日本語", "e\u{301}", "tab\there", "line\nbreak",
    ]

    private static func text(_ numbers: inout Numbers) -> String {
        (0..<numbers.next(12)).map { _ in
            numbers.next(40) == 0 ? oddWords[numbers.next(oddWords.count)] : words[numbers.next(words.count)]
        }.joined(separator: " ")
    }

    /// Columns of every fit, alignment and importance.
    private static let columns = [
        Column("#", alignRight: true, minWidth: 3), Column("Time", minWidth: 10),
        Column("Author", fit: .wrap(min: 8), importance: .key),
        Column("Bundle", fit: .wrap(min: 8), importance: .detail),
        Column("Value", fit: .value(min: 6)), Column("Details", fit: .wrap(min: 20)), Column("Why", fit: .below),
        Column("Count", alignRight: true),
    ]

    @Test func plainRowsAreWrittenAsTheirCells() {
        var numbers = Numbers(state: 57)
        var compared = 0
        var plain = 0
        for total in [nil, 20, 40, 60, 80, 120, 200] as [Int?] {
            for columnCount in [2, 5, 8] {
                let columns = Array(Self.columns.prefix(columnCount))
                func row() -> [Cell] {
                    columns.indices.map { i in
                        // Numbers in number columns; now and then a row one cell short.
                        i == 0 || i == 7 ? Cell(String(numbers.next(100_000))) : Cell(Self.text(&numbers))
                    }.dropLast(numbers.next(10) == 0 ? 1 : 0)
                }
                let layout = TableLayout(columns: columns, rows: (0..<20).map { _ in row() }, totalWidth: total)
                let writer = TableRowWriter(layout: layout, columns: columns, style: nil)
                var plainRow = PlainRow()
                for _ in 0..<400 {
                    let cells = row()
                    plainRow.reset()
                    for cell in cells {
                        plainRow.append(contentsOf: cell.text.utf8)
                        plainRow.endCell()
                    }
                    if plainRow.isPlain { plain += 1 }
                    var expected: [UInt8] = []
                    layout.write(cells, columns: columns, style: nil, to: &expected)
                    var written: [UInt8] = []
                    writer.write(&plainRow, orCells: { cells }, to: &written)
                    #expect(
                        written == expected,
                        "\(total.map(String.init) ?? "no terminal") \(cells.map(\.text)):\n\(String(decoding: written, as: UTF8.self))\nvs\n\(String(decoding: expected, as: UTF8.self))"
                    )
                    compared += 1
                }
            }
        }
        // Most rows were written plain (else this would try little of it).
        #expect(compared == 8400)
        #expect(plain > compared / 2, "\(plain) plain rows")
    }

    /// The fixtures and, when there, the real stores.
    static let stores: [String] = {
        let fixtures = (try? FileManager.default.contentsOfDirectory(atPath: Repository.fixtures)) ?? []
        var paths = fixtures.sorted().flatMap { dir in
            ((try? FileManager.default.contentsOfDirectory(atPath: Repository.fixtures + "/" + dir)) ?? []).sorted()
                .filter { $0.hasSuffix(".sqlite") }.map { Repository.fixtures + "/" + dir + "/" + $0 }
        }
        if RealStores.available { paths += [RealStores.photos, RealStores.photos15, RealStores.swiftData] }
        return paths
    }()

    @Test func plainChangesAndTransactionsGiveThePresentersCells() throws {
        // Read in chunks of a few transactions however small the store (a whole read is decoded).
        let layout = ReadLayout.split(minimum: 1, span: 8)
        let counts = PlainCounts()
        for path in Self.stores {
            let store = try HistoryStore.open(path)
            let decoder = store.makeDecoder(model: try store.resolveModel())
            let presenter = HistoryPresenter(time: TimeFormatter(utc: false))
            let writer = PlainChangeWriter(decoder: decoder, csvRaw: false)
            func cells(_ row: PlainRow) -> [String] {
                (0..<row.count).map { String(decoding: row.bytes[row.cell($0)], as: UTF8.self) }
            }
            try store.readChanges(HistoryQuery(), decoder: decoder, layout: layout) { chunk in
                var row = PlainRow()
                try chunk.forEach(
                    plain: { change in
                        row.reset()
                        writer.tableCells(change, to: &row)
                        guard row.isPlain else { return }
                        counts.add(changes: 1)
                        #expect(
                            cells(row) == presenter.cells(change.change, color: false, notes: .none).map(\.text),
                            "\(path)")
                    }, decoded: { _ in })
            }
            try store.readTransactions(HistoryQuery(), decoder: nil, layout: layout) { chunk in
                var row = PlainRow()
                var fields = PlainTransactionFields(storeUUID: store.storeUUID, presenter: presenter, csvRaw: false)
                try chunk.forEach(
                    plain: { tx, _ in
                        row.reset()
                        fields.tableCells(tx, to: &row)
                        guard row.isPlain else { return }
                        counts.add(transactions: 1)
                        #expect(
                            cells(row) == presenter.cells(tx.transaction(storeUUID: store.storeUUID)).map(\.text),
                            "\(path)")
                    }, decoded: { _, _ in })
            }
        }
        // Most of the fixtures' changes and transactions are plain.
        #expect(counts.changes > 500, "\(counts.changes) plain changes")
        #expect(counts.transactions > 100, "\(counts.transactions) plain transactions")
    }
}

extension PlainTableTests {
    /// A table long enough to be read in chunks lists every row once, in order: its first rows
    /// (written as soon as they are read) and the chunks' rows after them, which pass over those.
    @Test func aLongTableListsEachRowOnce() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Long.sqlite")
        // More transaction numbers than a read is split from, two changes each.
        let count = Int(HistoryStore.chunkedReadMinimum) + 1000
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .rollback,
                transactions: []),
            to: store, generated: (count, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 2) }))
        /// The numbers in the first column of a table's rows (a row's other lines begin with spaces).
        func firstColumn(_ arguments: [String]) throws -> [Int] {
            let run = try CLI.run(arguments + ["--format", "table"], environment: ["COLUMNS": "80"])
            #expect(run.status == 0, "\(run.stderr)")
            return run.lines.dropFirst().compactMap { line in
                line.prefix(while: { $0 == " " }).count < 8 ? line.split(separator: " ").first.flatMap { Int($0) } : nil
            }
        }
        #expect(try firstColumn(["changes", store]) == Array(1...(2 * count)))
        #expect(try firstColumn(["transactions", store]) == Array(1...count))
        #expect(
            try firstColumn(["changes", store, "--reverse", "--limit", "500"])
                == Array(((2 * count - 499)...(2 * count)).reversed()))
        #expect(try firstColumn(["transactions", store, "--limit", "201"]) == Array(1...201))
        #expect(try firstColumn(["changes", store, "--after", "tx:2", "--limit", "300"]) == Array(5...304))
    }
}

/// Plain rows counted by the threads reading chunks.
private final class PlainCounts: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var changes = 0, transactions = 0

    func add(changes: Int = 0, transactions: Int = 0) {
        lock.lock()
        defer { lock.unlock() }
        self.changes += changes
        self.transactions += transactions
    }
}
