import Foundation
import GRDB
import TestSupport
import Testing
@testable import HistoryKit

/// Transaction names are looked up by string reference where no filter needs the string
/// table joined: the names (and warnings) are those the joins select, for references of
/// every type, missing strings, strings that are not text and inline names.
@Suite struct TransactionNamesTests {
    private func transactions(_ store: HistoryStore, _ query: HistoryQuery = HistoryQuery()) throws -> [Int64: Transaction] {
        var out: [Int64: Transaction] = [:]
        try store.forEachTransaction(query) { out[$0.number] = $0 }
        return out
    }

    @Test func lookedUpNamesAreTheJoinedOnes() throws {
        let dir = try TemporaryDirectory()
        let path = try editedTasksStore(in: dir) { db in
            try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (900, 16003, 1, x'0102'), (901, 16003, 1, 7), (902, 16003, 1, NULL)")
            for (number, reference) in [(2, DatabaseValue.null), (3, 1.5.databaseValue), (4, "x".databaseValue), (5, Data([1]).databaseValue),
                                        (6, 999_999.databaseValue), (7, 900.databaseValue), (8, 900.databaseValue), (9, 901.databaseValue),
                                        (10, 902.databaseValue)] {
                try db.execute(sql: "UPDATE ATRANSACTION SET ZAUTHORTS = ?, ZAUTHOR = ? WHERE Z_PK = ?", arguments: [reference, "inline \(number)", number])
            }
        }
        let store = try HistoryStore.open(path)
        let read = try transactions(store)
        // What SQLite's join selects for the author.
        let joined = try DatabaseQueue(path: path).read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT t.Z_PK, COALESCE(s.ZNAME, t.ZAUTHOR) AS author FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS
                """).map { (row: Row) -> (Int64, DatabaseValue) in (row[0], row["author"]) })
        }
        #expect(read.count == joined.count)
        for (number, value) in joined {
            let tx = try #require(read[number])
            switch value.storage {
            case .string(let s): #expect(tx.author == s, "transaction \(number)")
            case .int64(let i): #expect(tx.author == String(i), "transaction \(number)")
            case .null: #expect(tx.author == nil, "transaction \(number)")
            case .blob: #expect(tx.author == nil && tx.warnings.contains { $0.message.description.contains("author") }, "transaction \(number)")
            case .double: Issue.record("transaction \(number): a REAL author")
            }
        }
        #expect(read[3]?.author == "inline 3" && read[6]?.author == "inline 6" && read[10]?.author == "inline 10")
        #expect(read[9]?.author == "7")
        // A name filter joins the string table: the same transactions, warnings and all.
        let filtered = try transactions(store, HistoryQuery(authors: [.none] + Set(read.values.compactMap(\.author)).map { .value($0) }))
        #expect(filtered.count >= read.count - 2)
        for (number, tx) in filtered { #expect(tx == read[number], "transaction \(number)") }
    }
}
