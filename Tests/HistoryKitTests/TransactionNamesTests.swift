import Foundation
import GRDB
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// Transaction names are looked up by string reference where no filter needs the string
/// table joined: the names (and warnings) are those the joins select, for references of
/// every type, missing strings, strings that are not text and inline names.
@Suite struct TransactionNamesTests {
    private func transactions(_ store: HistoryStore, _ query: HistoryQuery = HistoryQuery()) throws -> [Int64:
        Transaction]
    {
        var out: [Int64: Transaction] = [:]
        try store.forEachTransaction(query) { out[$0.number] = $0 }
        return out
    }

    /// The AppGroup store with authors of every kind: a NULL reference beside an inline name (2),
    /// references of other types (3–5), a dangling one (6), names that are a BLOB (7, 8), an
    /// INTEGER (9) and NULL (10), each with an inline name; then the dangling reference again
    /// without an inline name (11), and with one (12) in a row otherwise naming what 11 names.
    private func damagedAuthors(in dir: TemporaryDirectory) throws -> String {
        try editedTasksStore(in: dir) { db in
            try db.execute(
                sql:
                    """
                    INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (900, 16003, 1, x'0102'), \
                    (901, 16003, 1, 7), (902, 16003, 1, NULL)
                    """
            )
            for (number, reference) in [
                (2, DatabaseValue.null), (3, 1.5.databaseValue), (4, "x".databaseValue), (5, Data([1]).databaseValue),
                (6, 999_999.databaseValue), (7, 900.databaseValue), (8, 900.databaseValue), (9, 901.databaseValue),
                (10, 902.databaseValue),
            ] {
                try db.execute(
                    sql: "UPDATE ATRANSACTION SET ZAUTHORTS = ?, ZAUTHOR = ? WHERE Z_PK = ?",
                    arguments: [reference, "inline \(number)", number])
            }
            try db.execute(sql: "UPDATE ATRANSACTION SET ZAUTHORTS = 999999, ZAUTHOR = NULL WHERE Z_PK = 11")
            try db.execute(
                sql: """
                    UPDATE ATRANSACTION SET ZAUTHORTS = 999999, ZAUTHOR = 'inline 12',
                        ZCONTEXTNAMETS = (SELECT ZCONTEXTNAMETS FROM ATRANSACTION WHERE Z_PK = 11),
                        ZBUNDLEIDTS = (SELECT ZBUNDLEIDTS FROM ATRANSACTION WHERE Z_PK = 11),
                        ZPROCESSIDTS = (SELECT ZPROCESSIDTS FROM ATRANSACTION WHERE Z_PK = 11) WHERE Z_PK = 12
                    """)
        }
    }

    @Test func lookedUpNamesAreTheJoinedOnes() throws {
        let dir = try TemporaryDirectory()
        let path = try damagedAuthors(in: dir)
        let store = try HistoryStore.open(path)
        let read = try transactions(store)
        // What SQLite's join selects for the author.
        let joined = try DatabaseQueue(path: path).read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(
                    db,
                    sql: """
                        SELECT t.Z_PK, COALESCE(s.ZNAME, t.ZAUTHOR) AS author FROM ATRANSACTION t LEFT JOIN \
                        ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS
                        """
                ).map { (row: Row) -> (Int64, DatabaseValue) in (row[0], row["author"]) })
        }
        #expect(read.count == joined.count)
        for (number, value) in joined {
            let tx = try #require(read[number])
            switch value.storage {
            case .string(let s): #expect(tx.author == s, "transaction \(number)")
            case .int64(let i): #expect(tx.author == String(i), "transaction \(number)")
            case .null: #expect(tx.author == nil, "transaction \(number)")
            case .blob:
                #expect(
                    tx.author == nil && tx.warnings.contains { $0.message.description.contains("author") },
                    "transaction \(number)")
            case .double: Issue.record("transaction \(number): a REAL author")
            }
        }
        #expect(read[3]?.author == "inline 3" && read[6]?.author == "inline 6" && read[10]?.author == "inline 10")
        #expect(read[9]?.author == "7" && read[11]?.author == nil && read[12]?.author == "inline 12")
        // A name filter joins the string table: the same transactions, warnings and all.
        let filtered = try transactions(
            store, HistoryQuery(authors: [.none] + Set(read.values.compactMap(\.author)).map { .value($0) }))
        #expect(filtered.count >= read.count - 2)
        for (number, tx) in filtered { #expect(tx == read[number], "transaction \(number)") }
    }

    /// A chunked read (here in one chunk, so that 12 follows 11 on one reader) hands out as plain
    /// (``PlainTransaction``) exactly the transactions whose names all come from the string
    /// table by an integer reference, or are none, and read without a problem; each is the
    /// transaction a read of it decoded gives.
    @Test func plainTransactionsAreTheDecodedOnes() throws {
        let dir = try TemporaryDirectory()
        let store = try HistoryStore.open(try damagedAuthors(in: dir))
        let decoded = try transactions(store)
        final class Collected: @unchecked Sendable {
            let lock = NSLock()
            var read: [Int64: (Transaction, plain: Bool)] = [:]
        }
        let collected = Collected()
        let split = try store.readSplit(
            HistoryQuery(), decoder: try store.makeDecoder(model: store.resolveModel()), minimum: 0, span: 1_000
        ) { chunk in
            try chunk.forEach(
                plain: { tx, _ in
                    let uuid = store.storeUUID
                    collected.lock.withLock { collected.read[tx.number] = (tx.transaction(storeUUID: uuid), true) }
                },
                decoded: { tx, _ in
                    collected.lock.withLock { collected.read[tx.number] = (tx, false) }
                })
        }
        guard split else {
            print("note: one usable core; transactions are not read in chunks, so none is plain")
            return
        }
        #expect(collected.read.count == decoded.count)
        for (number, tx) in decoded { #expect(collected.read[number]?.0 == tx, "transaction \(number)") }
        let notPlain = collected.read.filter { !$0.value.plain }.keys.sorted()
        #expect(notPlain == [2, 3, 4, 5, 6, 7, 8, 10, 12])
    }
}
