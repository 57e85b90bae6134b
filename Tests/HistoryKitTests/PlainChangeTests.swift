import Foundation
import GRDB
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// A plain change (read in place for the export) is exactly the change decoding gives,
/// without a warning; every change that decodes without one as an insert or update is plain.
@Suite struct PlainChangeTests {
    /// The changes of every transaction of `path`, decoded and as `forEach(plain:decoded:)`
    /// hands them out (plain ones turned into changes, marked).
    private func read(_ path: String) throws -> (decoded: [Change], split: [(change: Change, plain: Bool)]) {
        let store = try HistoryStore.open(path)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        var decoded: [Change] = []
        var split: [(change: Change, plain: Bool)] = []
        try store.forEachTransactionWithChanges(HistoryQuery(), decoder: decoder) { _, changes in
            try changes.forEach { decoded.append($0) }
        }
        try store.forEachTransactionWithChanges(HistoryQuery(), decoder: decoder) { _, changes in
            try changes.forEach(plain: { split.append(($0.change, true)) }, decoded: { split.append(($0, false)) })
        }
        return (decoded, split)
    }

    private func check(_ path: String) throws -> (plain: Int, decoded: Int) {
        let (decoded, split) = try read(path)
        #expect(split.map(\.change) == decoded, "\(path)")
        for (change, plain) in split {
            let clean =
                change.warnings.isEmpty && change.tombstone.isEmpty && [.insert, .update].contains(change.changeType)
            #expect(
                plain == clean,
                "\(path): change \(change.changeID) \(plain ? "plain" : "decoded") with \(change.warnings)")
        }
        let plain = split.filter(\.plain).count
        return (plain, split.count - plain)
    }

    @Test(arguments: FieldSummaryTests.stores) func plainChangesAreTheDecodedOnes(store path: String) throws {
        let (plain, _) = try check(path)
        #expect(plain > 0, "\(path) has no plain change")
    }

    /// Rows Core Data never writes are all decoded (with their warnings), the rest stay plain.
    @Test func damagedRowsAreDecoded() throws {
        let dir = try TemporaryDirectory()
        let path = try editedTasksStore(in: dir) { db in
            let updates = "SELECT Z_PK FROM ACHANGE WHERE ZCHANGETYPE = 1 ORDER BY Z_PK LIMIT 1 OFFSET ?"
            func edit(_ set: String, update offset: Int) throws {
                try db.execute(sql: "UPDATE ACHANGE SET \(set) WHERE Z_PK = (\(updates))", arguments: [offset])
            }
            try edit("ZCOLUMNS = ZCOLUMNS || x'00'", update: 0)  // too long
            try edit("ZCOLUMNS = x'ffffffffffffffff'", update: 1)  // bits past the last slot
            try edit("ZCOLUMNS = 'text'", update: 2)  // not a BLOB
            try edit("ZCOLUMNS = NULL", update: 3)  // an update without columns
            try edit("ZENTITYPK = 1.5", update: 4)
            try edit("ZENTITY = 999", update: 5)
            try edit("ZCHANGETYPE = 7", update: 6)
            try db.execute(
                sql:
                    """
                    UPDATE ACHANGE SET ZENTITY = 'x' WHERE Z_PK = (SELECT MIN(Z_PK) FROM ACHANGE WHERE \
                    ZCHANGETYPE = 0)
                    """
            )
        }
        let (plain, decoded) = try check(path)
        #expect(plain > 0)
        #expect(decoded >= 8)
    }
}
