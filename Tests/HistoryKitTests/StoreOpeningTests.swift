import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

@Suite struct StoreOpeningTests {
    private func openError(_ path: String) -> StoreError? {
        do {
            _ = try HistoryStore.open(path, options: OpenOptions(busyTimeout: 0.2))
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("unexpected error type \(type(of: error)): \(error)")
            return nil
        }
    }

    /// Reads made inside `snapshot` see one state while an app commits; after it, the new one.
    @Test func readsInsideASnapshotAgree() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Tasks.sqlite")
        try FileManager.default.copyItem(atPath: Repository.fixtures + "/AppGroup/Tasks.sqlite", toPath: path)
        let app = try DatabaseQueue(path: path)
        defer { try? app.close() }
        try app.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        let store = try HistoryStore.open(path)
        let before = try store.transactionCount()
        let (first, second, tx) = try store.snapshot {
            let first = try store.transactionCount()
            try app.write {
                try $0.execute(sql: "INSERT INTO ATRANSACTION (Z_PK, ZTIMESTAMP) VALUES (1000, 800000000)")
            }
            return (first, try store.transactionCount(), try store.transaction(number: 1000))
        }
        #expect(first == before && second == before && tx == nil)
        #expect(try store.transactionCount() == before + 1)
        #expect(try store.transaction(number: 1000)?.timestamp == 800_000_000)
    }

    @Test func missingFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("none.sqlite")
        #expect(openError(path) == .fileNotFound(path: path))
        #expect(openError(path)?.description == "\(path): no such file")
        #expect(try DirectoryState(dir.path).files.isEmpty)
    }

    @Test func directory() throws {
        let dir = try TemporaryDirectory()
        #expect(openError(dir.path) == .isDirectory(path: dir.path))
        #expect(openError(dir.path)?.description == "\(dir.path): is a directory, not a store file")
    }

    @Test func notSQLite() throws {
        let dir = try TemporaryDirectory()
        let empty = dir.file("empty.sqlite")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(openError(empty) == .notSQLite(path: empty, reason: "empty file"))
        let text = dir.file("text.sqlite")
        _ = FileManager.default.createFile(
            atPath: text, contents: Data(String(repeating: "hello world ", count: 100).utf8))
        #expect(openError(text) == .notSQLite(path: text, reason: "no SQLite header"))
        #expect(openError(text)?.description.hasPrefix("\(text): not an SQLite database") == true)
    }

    @Test func truncatedAndCorrupt() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .rollback), in: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let truncated = dir.file("truncated.sqlite")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        guard case .truncated(let p, let expected, let actual)? = openError(truncated) else {
            Issue.record("expected .truncated, got \(String(describing: openError(truncated)))")
            return
        }
        #expect(p == truncated && expected == Int64(bytes.count) && actual == Int64(bytes.count / 2))
        #expect(
            openError(truncated)?.description
                == """
                \(truncated): truncated SQLite database (header declares \(bytes.count) bytes, file has \
                \(bytes.count / 2))
                """
        )
        let headerOnly = dir.file("header.sqlite")
        try bytes.prefix(60).write(to: URL(fileURLWithPath: headerOnly))
        #expect(openError(headerOnly) == .truncated(path: headerOnly, expectedBytes: 100, actualBytes: 60))

        // Overwrite the schema page's content area with noise: SQLite reports corruption.
        var damaged = bytes
        for i in 100..<4096 { damaged[i] = UInt8(truncatingIfNeeded: i * 7) }
        let corrupt = dir.file("corrupt.sqlite")
        try damaged.write(to: URL(fileURLWithPath: corrupt))
        let error = openError(corrupt)
        guard case .corrupt(let cp, _)? = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(cp == corrupt)
        #expect(error?.description.hasPrefix("\(corrupt): corrupt SQLite database (") == true)
    }

    @Test func plainSQLiteIsNotCoreData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("plain.sqlite")
        let q = try DatabaseQueue(path: path)
        try q.write { try $0.execute(sql: "CREATE TABLE t (x)") }
        try q.close()
        #expect(openError(path) == .notCoreData(path: path, missing: ["Z_METADATA", "Z_PRIMARYKEY"]))
        #expect(
            openError(path)?.description
                == "\(path): SQLite database but not a Core Data store (no Z_METADATA, Z_PRIMARYKEY table)")
    }

    @Test func coreDataStoreWithoutHistory() throws {
        let dir = try TemporaryDirectory()
        var fixture = LibraryModel.fixture(journalMode: .rollback)
        fixture.historyEnabled = false
        let path = try LibraryModel.write(fixture, in: dir)
        #expect(openError(path) == .historyNotEnabled(path: path))
        #expect(openError(path)?.description.contains("NSPersistentHistoryTrackingKey") == true)
    }

    /// Another process (python3's sqlite3 module) holds an exclusive lock until its stdin closes.
    @Test(.enabled(if: LockHolder.available)) func storeLockedByAnotherProcess() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .rollback), in: dir)
        let holder = try LockHolder(path: path)
        let start = Date()
        #expect(openError(path) == .locked(path: path, seconds: 0.2))
        #expect(openError(path)?.description == "\(path): locked by another process (still busy after 0.2 s)")
        #expect(Date().timeIntervalSince(start) < 5)
        holder.release()
        #expect(openError(path) == nil)
    }

    /// A writer killed mid-transaction leaves a hot journal; reading it read-only
    /// would need a rollback, so a snapshot is read (showing the rolled-back state).
    @Test(.enabled(if: LockHolder.available)) func hotJournalIsReadThroughASnapshot() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .rollback), in: dir)
        let crash = Process()
        crash.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        crash.arguments = [
            "python3", "-c",
            """
            import os, sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA cache_size = 1")
            db.execute("BEGIN")
            for i in range(3000):
                db.execute("INSERT INTO ATRANSACTION (Z_ENT, ZTIMESTAMP, ZAUTHOR) VALUES (16002, ?, ?)", (i, "x" * 200))
            os._exit(0)
            """, path,
        ]
        try crash.run()
        crash.waitUntilExit()
        #expect((StoreFiles.size(path + "-journal") ?? 0) > 0)
        let before = try DirectoryState(dir.path)
        do {
            let store = try HistoryStore.open(path)
            #expect(store.notices.contains { if case .readFromSnapshot = $0 { return true } else { return false } })
            #expect(try store.statistics().transactionCount == 6)
        }
        #expect(try DirectoryState(dir.path) == before)
    }

    @Test func walWithoutShmReadsASnapshotAndSaysSo() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .wal(keepInWAL: 2)), in: dir)
        try FileManager.default.removeItem(atPath: path + "-shm")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        let before = try DirectoryState(dir.path)
        do {
            let store = try HistoryStore.open(path)
            #expect(store.notices.contains(.walWithoutShm(path: path)))
            #expect(store.notices.contains { if case .readFromSnapshot = $0 { return true } else { return false } })
            #expect(try store.statistics().transactionCount == 6)
        }
        #expect(try DirectoryState(dir.path) == before)
    }

    @Test func shmWithoutWalIsANotice() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .wal(keepInWAL: 0)), in: dir)
        _ = FileManager.default.createFile(atPath: path + "-shm", contents: Data(count: 32768))
        let before = try DirectoryState(dir.path)
        do {
            let store = try HistoryStore.open(path)
            #expect(store.notices == [.shmWithoutWal(path: path)])
            #expect(try store.statistics().transactionCount == 6)
        }
        #expect(try DirectoryState(dir.path) == before)
    }

    @Test func readingTheWALChangesNoFile() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .wal(keepInWAL: 3)), in: dir)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let before = try DirectoryState(dir.path)
        do {
            let store = try HistoryStore.open(path)
            #expect(store.notices.isEmpty)
            let stats = try store.statistics()
            #expect(stats.transactionCount == 6)
            #expect(stats.changeCount == 11)
            var seen = 0
            try store.forEachTransactionWithChanges(
                HistoryQuery(), decoder: store.makeDecoder(model: try store.resolveModel())
            ) { _, _ in seen += 1 }
            #expect(seen == 6)
        }
        #expect(try DirectoryState(dir.path) == before)
        // The main file alone holds only the first three transactions: the rest is WAL content.
        let mainOnly = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: path, toPath: mainOnly.file("Library.sqlite"))
        #expect(try HistoryStore.open(mainOnly.file("Library.sqlite")).statistics().transactionCount == 3)
    }
}
