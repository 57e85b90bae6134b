import Foundation
import GRDB
import GRDBSQLite
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// The statements behind the commands that must answer at once on large stores use
/// Core Data's own indexes as intended (cdhist creates none): SQLite's EXPLAIN QUERY
/// PLAN on stores written by Core Data (the real stores when present) and on our fixture.
@Suite struct QueryPlanTests {
    static var stores: [String] {
        [Repository.fixtures + "/AppGroup/Tasks.sqlite"]
            + (RealStores.available ? [RealStores.photos, RealStores.swiftData] : [])
    }

    private func plan(_ store: HistoryStore, _ sql: String) throws -> String {
        try store.read { db in
            let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
            // Every parameter NULL: the plan does not depend on the values.
            let nulls = StatementArguments(
                Array(
                    repeating: DatabaseValue.null, count: Int(sqlite3_bind_parameter_count(statement.sqliteStatement))))
            return try Row.fetchAll(statement, arguments: nulls).map { $0["detail"] as String? ?? "" }.joined(
                separator: "\n")
        }
    }

    @Test(arguments: stores) func historyReadsUseCoreDataIndexes(store path: String) throws {
        let store = try HistoryStore.open(path)
        let all = try HistorySQL(store: store, query: HistoryQuery())
        // Transactions in number order: the table in rowid order, each change count from the index alone.
        let transactions = try plan(store, all.transactionSelect(limit: nil))
        #expect(
            transactions.contains("SCAN t")
                && transactions.contains("COVERING INDEX ACHANGE_ZTRANSACTIONID_INDEX (ZTRANSACTIONID=?)"),
            "\(transactions)")
        #expect(!transactions.contains("TEMP B-TREE"), "\(transactions)")
        // Names are looked up by string reference (a rowid), not joined per transaction.
        #expect(all.looksUpNames && !transactions.contains("ATRANSACTIONSTRING"), "\(transactions)")
        let name = try plan(store, HistorySQL.nameLookup)
        #expect(name.contains("SEARCH ATRANSACTIONSTRING USING INTEGER PRIMARY KEY (rowid=?)"), "\(name)")
        // A chunk's transactions: a range of rowids; counted apart when the chunk reads every change of its range.
        let chunk = try plan(store, all.transactionSelect(limit: nil, numbered: true, counted: false))
        #expect(
            chunk.contains("SEARCH t USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") && !chunk.contains("TEMP B-TREE")
                && !chunk.contains("ACHANGE"), "\(chunk)")
        // One transaction's changes, and a run of transactions' changes in one walk: the index, no sort.
        let one = try plan(store, all.changesOfTransactionSelect())
        #expect(
            one.contains("SEARCH c USING INDEX ACHANGE_ZTRANSACTIONID_INDEX (ZTRANSACTIONID=?)")
                && !one.contains("TEMP B-TREE"), "\(one)")
        let run = try plan(store, all.changesOfTransactionsSelect())
        #expect(
            run.contains("SEARCH c USING INDEX ACHANGE_ZTRANSACTIONID_INDEX (ZTRANSACTIONID>? AND ZTRANSACTIONID<?)")
                && !run.contains("TEMP B-TREE"), "\(run)")
        // authors, check: change counts beside the transactions, from the index alone, in its order.
        let counts = try plan(store, ChangeCounts.select)
        #expect(
            counts.contains("COVERING INDEX ACHANGE_ZTRANSACTIONID_INDEX") && !counts.contains("TEMP B-TREE"),
            "\(counts)")
        // transactions --limit 50 --author A: transactions in number order until 50 match (the name is the
        // string table's or the inline column's, which no index holds), no sort, only those 50 counted.
        let author = try HistorySQL(store: store, query: HistoryQuery(authors: [.value("A")], limit: 50))
        let limited = try plan(store, author.transactionSelect(limit: 50))
        // (The 50 kept are sorted again, a sort of 50 rows.)
        let matching = limited.components(separatedBy: "SCAN x")[0]
        #expect(
            matching.contains("SCAN t") && !matching.contains("TEMP B-TREE") && !limited.contains("SCAN c"),
            "\(limited)")
        // Objects (--object, object): ACHANGE in table order by ranges of rowids (one per core), as Core
        // Data has no index on the key.
        let objects = try HistorySQL(
            store: store,
            query: HistoryQuery(objects: [ObjectReference(entityName: store.catalog.entities[0].name, primaryKey: 1)]))
        let scan = try plan(store, #require(objects.changeMatchSelect()))
        #expect(
            scan.contains("SEARCH c USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") && !scan.contains("INDEX"),
            "\(scan)")
    }
}
