import Foundation
import GRDB
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// WALLength cuts off what a failed write appended to a -wal, and nothing another
/// connection committed.
@Suite struct WALLengthTests {
    /// A WAL-mode database with one committed row, kept open by `writer` so the -wal stays.
    private func database(in dir: TemporaryDirectory) throws -> (path: String, writer: DatabaseQueue) {
        let path = dir.file("store.sqlite")
        let writer = try DatabaseQueue(path: path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        return (path, writer)
    }

    private func size(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
    }

    @Test func framesNobodyCommittedAreCutOff() throws {
        let dir = try TemporaryDirectory()
        let (path, writer) = try database(in: dir)
        defer { try? writer.close() }
        let wal = path + "-wal"
        let before = try #require(try writer.inDatabase { WALLength(wal, $0) })
        // What a write stopped by a full disk leaves: frames past the last commit.
        let handle = try #require(FileHandle(forWritingAtPath: wal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4120))
        try handle.close()
        writer.inDatabase { before.restore($0) }
        #expect(try size(wal) == before.length)
        #expect(try writer.read { try Int.fetchAll($0, sql: "SELECT x FROM t") } == [1])
    }

    @Test func anotherConnectionsCommitIsKept() throws {
        let dir = try TemporaryDirectory()
        let (path, writer) = try database(in: dir)
        defer { try? writer.close() }
        let wal = path + "-wal"
        let before = try #require(try writer.inDatabase { WALLength(wal, $0) })
        let other = try DatabaseQueue(path: path)
        try other.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        try other.close()
        let grown = try size(wal)
        #expect(grown > before.length)
        writer.inDatabase { before.restore($0) }
        #expect(try size(wal) == grown)
        #expect(try writer.read { try Int.fetchAll($0, sql: "SELECT x FROM t ORDER BY x") } == [1, 2])
    }
}
