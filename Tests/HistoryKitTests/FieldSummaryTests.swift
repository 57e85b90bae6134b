import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// The one-pass field summaries agree with SQLite's own GROUP BY of the same values
/// (COALESCE of the string table's name and the inline column, a BLOB as no name).
@Suite struct FieldSummaryTests {
    static var stores: [String] {
        let fixtures = (try? FileManager.default.contentsOfDirectory(atPath: Repository.fixtures)) ?? []
        let committed = fixtures.sorted().compactMap { name -> String? in
            let folder = Repository.fixtures + "/" + name
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return files.first { $0.hasSuffix(".sqlite") || $0.hasSuffix(".store") }.map { folder + "/" + $0 }
        }
        return committed + (RealStores.available ? [RealStores.photos, RealStores.swiftData] : [])
    }

    /// SQLite's answer for `field`: what the summaries replaced.
    private func grouped(_ store: HistoryStore, _ field: TransactionField) throws -> [FieldSummary] {
        let (reference, inline) = field.columns
        var parts: [String] = []
        let hasReference = store.schema.hasStringTable && store.schema.transactionColumns.contains(reference)
        if hasReference { parts.append("s.ZNAME") }
        if store.schema.transactionColumns.contains(inline) { parts.append("t.\(inline)") }
        let value = parts.isEmpty ? "NULL" : parts.count == 1 ? parts[0] : "COALESCE(\(parts.joined(separator: ", ")))"
        let time = "CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END"
        return try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT CASE WHEN typeof(\(value)) = 'blob' THEN NULL ELSE \(value) END AS v, COUNT(*),
                           SUM((SELECT COUNT(*) FROM ACHANGE c WHERE c.ZTRANSACTIONID = t.Z_PK)), MIN(\(time)), \
                    MAX(\(time)), MIN(t.Z_PK), MAX(t.Z_PK)
                    FROM ATRANSACTION \
                    t\(hasReference ? " LEFT JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.\(reference)" : "")
                    GROUP BY v ORDER BY COUNT(*) DESC, v ASC
                    """
            ).map { row in
                FieldSummary(
                    value: row[0], transactionCount: row[1], changeCount: row[2], firstTimestamp: row[3],
                    lastTimestamp: row[4], firstTransaction: row[5], lastTransaction: row[6])
            }
        }
    }

    @Test(arguments: stores) func onePassAgreesWithGroupBy(store path: String) throws {
        let store = try HistoryStore.open(path)
        let all = try store.fieldSummaries(TransactionField.allCases)
        for field in TransactionField.allCases {
            #expect(all[field] == (try grouped(store, field)), "\(path) \(field)")
        }
        // Split over the cores (done from 50,000 transactions on), the same.
        #expect(try store.fieldSummaries(TransactionField.allCases, countingChanges: true, parallelFrom: 0) == all)
        let uncounted = try store.fieldSummaries(.author, countingChanges: false)
        #expect(
            uncounted.map(\.changeCount).allSatisfy { $0 == 0 } && uncounted.map(\.value) == all[.author]?.map(\.value))
    }

    /// Change counts by entity and type, tallied in parts, are SQLite's GROUP BY.
    @Test(arguments: stores) func entityCountsAgreeWithGroupBy(store path: String) throws {
        let store = try HistoryStore.open(path)
        let grouped = try store.read { try store.entityChangeCounts($0) }
        #expect(try store.entityChangeCounts() == grouped)
        #expect(try store.entityChangeCounts(parallelFrom: 0) == grouped)
        #expect(
            grouped.byEntity.values.reduce(0) { $0 + $1.total } + grouped.withoutEntityNumber.total
                == (try store.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ACHANGE") }))
    }

    /// A check's context reads the tallies its rules share once, as the store reads them; read
    /// for a page (a report), its attribution counts changes and its statistics change types.
    @Test(arguments: stores) func aCheckContextSharesTheStoresTallies(store path: String) throws {
        let store = try HistoryStore.open(path)
        let model = try store.resolveModel()
        let changes =
            try store.read {
                try Int.fetchOne(
                    $0, sql: "SELECT COUNT(*) FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID")
            } ?? 0
        for counting in [false, true] {
            let context = try CheckContext(
                store: store, mergeState: nil, config: CheckConfig(), model: model, now: 770_000_000,
                readingForAPage: counting)
            let expected = try store.fieldSummaries([.author, .contextName], countingChanges: counting)
            #expect(try context.attribution() == expected && (try context.attribution()) == expected, "\(path)")
            #expect(try context.entityChangeCounts() == (try store.entityChangeCounts()), "\(path)")
            #expect(
                try context.attribution()[.author]?.reduce(0) { $0 + $1.changeCount } ?? 0 == (counting ? changes : 0),
                "\(path)")
            #expect(
                context.statistics
                    == (try counting ? store.statistics(changeTypes: store.entityChangeCounts()) : store.statistics()),
                "\(path)")
        }
    }

    /// The ranges the parts read cover the numbers once, in order, even across all of Int64.
    @Test func rangesCoverTheNumbersOnce() {
        #expect(HistoryStore.split(1, 10, parts: 3) == [1...4, 5...8, 9...10])
        #expect(HistoryStore.split(5, 5, parts: 4) == [5...5])
        #expect(HistoryStore.split(1, 3, parts: 8) == [1...1, 2...2, 3...3])
        #expect(HistoryStore.split(1, 1000, parts: 1) == [1...1000])
        for (first, last, parts) in [
            (Int64.min, Int64.max, 2), (Int64.min, Int64.max, 16), (-7, 1_000_003, 5), (0, Int64.max, 3),
        ] {
            let ranges = HistoryStore.split(first, last, parts: parts)
            #expect(
                ranges.count <= parts && ranges.first?.lowerBound == first && ranges.last?.upperBound == last,
                "\(first) \(last) \(parts)")
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound &+ 1 == $1.lowerBound }, "\(ranges)")
        }
    }

    /// A BLOB name, a dangling reference (falls back to the inline text) and an empty store.
    @Test func oddValuesAreNamedAsSQLiteNamesThem() throws {
        let dir = try TemporaryDirectory()
        let path = try editedTasksStore(in: dir) { db in
            try db.execute(sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = x'00ff' WHERE ZNAME = 'widget'")
            try db.execute(sql: "UPDATE ATRANSACTION SET ZAUTHORTS = 999 WHERE Z_PK = 3")
            try db.execute(sql: "UPDATE ACHANGE SET ZENTITY = 'Task' WHERE Z_PK = 3")
            try db.execute(sql: "UPDATE ACHANGE SET ZCHANGETYPE = NULL WHERE Z_PK = 4")
            try db.execute(sql: "UPDATE ACHANGE SET ZENTITY = 2.5, ZCHANGETYPE = 'x' WHERE Z_PK = 5")
        }
        let store = try HistoryStore.open(path)
        for field in TransactionField.allCases {
            #expect(try store.fieldSummaries([field])[field] == (try grouped(store, field)), "\(field)")
        }
        let grouped = try store.read { try store.entityChangeCounts($0) }
        #expect(try store.entityChangeCounts(parallelFrom: 0) == grouped && grouped.withoutEntityNumber.total == 2)
        let authors = try store.fieldSummaries(.author).map(\.value)
        #expect(!authors.contains("widget") && authors.contains(nil))
    }
}
