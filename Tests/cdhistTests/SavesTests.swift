import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// The saves of a `-wal`, and the store read as it was after each: what `saves` and `--at-save`
/// say equals what SQLite itself reads from a copy whose `-wal` ends at that commit, and the
/// files are left exactly as they were.
@Suite(.tags(.slow)) struct SavesTests {
    /// Where each commit of the `-wal` beside `store` ends, in bytes.
    static func commitEnds(_ store: String) throws -> (wal: Data, ends: [Int]) {
        let wal = try #require(FileContents.read(store + "-wal"))
        let bytes = [UInt8](wal)
        func word(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        let pageSize = word(8)
        var ends: [Int] = []
        var at = 32
        while at + 24 + pageSize <= bytes.count {
            if word(at + 4) != 0 { ends.append(at + 24 + pageSize) }
            at += 24 + pageSize
        }
        return (wal, ends)
    }

    /// Every table's rows (by rowid) of a copy of `store` whose `-wal` is `wal`'s first `end` bytes, as SQLite reads it.
    static func tables(_ store: String, wal: Data, end: Int, in dir: TemporaryDirectory) throws -> [String: [Int64:
        [DatabaseValue]]]
    {
        let copy = dir.file("copy-\(end).sqlite")
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: store, toPath: copy)
        if end > 0 { try wal.prefix(end).write(to: URL(fileURLWithPath: copy + "-wal")) }
        let queue = try DatabaseQueue(path: copy)
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String: [Int64: [DatabaseValue]]] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                guard let rows = try? Row.fetchAll(db, sql: "SELECT rowid, * FROM \"\(table)\"") else { continue }
                result[table] = Dictionary(
                    rows.map { ($0[0] as Int64, Array($0.databaseValues.dropFirst())) }, uniquingKeysWith: { a, _ in a }
                )
            }
            return result
        }
    }

    /// Reading the saves, at a save, their values or what they removed changes no byte and makes no
    /// file, also beside a `-wal` that has no `-shm` (where an ordinary read must copy the store,
    /// SQLite needing to create one).
    @Test func readingAtASaveLeavesTheFilesAsTheyWere() throws {
        var sources = ["WALPending", "WALSaves", "WALCheckpointed", "WALReset"].map {
            Repository.fixtures + "/\($0)/Tasks.sqlite"
        }
        if RealStores.available { sources += [RealStores.photos15, RealStores.swiftData] }
        for source in sources {
            for keepSHM in [true, false] {
                let dir = try TemporaryDirectory()
                let name = URL(fileURLWithPath: source).lastPathComponent
                for suffix in ["", "-wal"] + (keepSHM ? ["-shm"] : []) {
                    try FileManager.default.copyItem(atPath: source + suffix, toPath: dir.file(name + suffix))
                }
                let store = dir.file(name)
                let before = try DirectoryState(dir.path)
                let tasks = name == "Tasks.sqlite" ? [["object", store, "Task/p3", "--values"]] : []
                for arguments in [
                    ["saves", store, "--slots"], ["info", store, "--at-save", "1"],
                    ["export", store, "--at-save", "1"],
                    ["changes", store, "--at-save", "1", "--format", "json"],
                    ["check", store, "--at-save", "1", "--format", "json"],
                    ["recover", store], ["changes", store, "--values", "--format", "json"],
                    ["export", store, "--values", "--format", "csv"],
                    ["diff", store, store, "--old-save", "1", "--new-save", "1"],
                ] + tasks {
                    let r = try CLI.run(arguments)
                    #expect(r.status == 0 || arguments[0] == "check", "\(arguments): \(r.stderr)")
                    #expect(
                        try DirectoryState(dir.path) == before,
                        "\(arguments) on \(name) (\(keepSHM ? "with" : "without") -shm) changed a file")
                }
            }
        }
    }

    /// Two saves of one store compared: what the saves between them added.
    @Test func diffComparesTwoSaves() throws {
        let store = Repository.fixtures + "/WALPending/Tasks.sqlite"
        let r = try CLI.run(["diff", store, store, "--old-save", "2", "--new-save", "5", "--format", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let added = try #require(try r.json()["added"] as? [String: Any])
        #expect(added["transactions"] as? Int == 3, "\(added)")
        #expect(
            (added["first"] as? [String: Any])?["transactionNumber"] as? Int == 29
                && (added["last"] as? [String: Any])?["transactionNumber"] as? Int == 31)
        #expect(try CLI.run(["diff", store, store, "--old-save", "4", "--new-save", "4"]).status == 0)
    }

    /// A purge run while the log held the saves is recovered whole, transaction for transaction and
    /// change for change, as the store had them before it.
    @Test func aPurgeInsideTheSavesIsRecoveredWhole() throws {
        let dir = try TemporaryDirectory()
        let copy = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/WALPending", prefix: "Tasks.sqlite")
        let store = dir.file("Tasks.sqlite")
        let original = try CLI.run(["export", store, "--before", "tx:31"]).lines
        #expect(original.count == 30)
        // A reader keeps the log from being checkpointed while the purge commits; the files are copied then.
        let reader = try DatabaseQueue(path: store)
        try reader.read { _ = try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") }
        let writer = try DatabaseQueue(path: store)
        try writer.write { db in
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= 30")
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= 30")
        }
        try writer.close()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: copy.file("Tasks.sqlite" + suffix))
        }
        try reader.close()
        let purged = copy.file("Tasks.sqlite")
        let saves = try #require(
            try CLI.run(["saves", purged, "--format", "json"]).json()["saves"] as? [[String: Any]])
        #expect(saves.count == 9 && saves.last?["transactionsRemoved"] as? [Int] == Array(1...30))
        let recovered = try CLI.run(["recover", purged, "--format", "json"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let transactions = try #require(try recovered.json()["transactions"] as? [[String: Any]])
        #expect(transactions.count == 30)
        for (line, found) in zip(original, transactions) {
            var expected = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            expected["format"] = nil
            var got = found
            #expect((got.removeValue(forKey: "recoveredFrom") as? [String: Any])?["removedBy"] as? Int == 9)
            #expect(NSDictionary(dictionary: got).isEqual(to: expected), "#\(expected["transactionNumber"] ?? "?")")
        }
    }

    /// Saves whose truth is known, written here: four saves that each add three rows too large for
    /// a page (so each writes pages no save wrote before), a reader holding the log open at the
    /// second of them while a checkpoint copies every frame so far into the main file. The main
    /// file then holds the pages of saves 9 and 10 as save 10 left them: the states before save 9
    /// (0 to 8), which read page 1 and the new table's pages from there, cannot be rebuilt; from 9
    /// on they can (the pages save 10 adds lie beyond the database after save 9, which SQLite does
    /// not read: SQLite reading the log cut at save 9 finds the database whole and its three rows). A reset after that (the log restarted
    /// from its first frame, shorter than before) leaves the old frames behind as an earlier
    /// generation, and its one save is read whole.
    @Test func aCheckpointInsideTheSavesAndALogResetHaveKnownResults() throws {
        let dir = try TemporaryDirectory()
        let copy = try TemporaryDirectory()
        let reset = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/WALPending", prefix: "Tasks.sqlite")
        let store = dir.file("Tasks.sqlite")
        let writer = try DatabaseQueue(path: store)
        try writer.inDatabase { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        func save(_ first: Int) throws {
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS SAVETEST (Z_PK INTEGER PRIMARY KEY, ZDATA BLOB)")
                for key in first..<(first + 3) {
                    try db.execute(sql: "INSERT INTO SAVETEST VALUES (?, zeroblob(6000))", arguments: [key])
                }
            }
        }
        func copyFiles(to target: TemporaryDirectory) throws {
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(atPath: store + suffix, toPath: target.file("Tasks.sqlite" + suffix))
            }
        }
        try save(1)
        try save(4)
        // A reader that keeps its snapshot (save 10) holds the checkpoint back there.
        let reader = try HeldReader.open(store)
        try writer.inDatabase { _ = try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        try save(7)
        try save(10)
        try copyFiles(to: copy)
        try reader.inDatabase { try $0.execute(sql: "COMMIT") }
        try reader.close()

        let checkpointed = copy.file("Tasks.sqlite")
        let saves = try #require(
            try CLI.run(["saves", checkpointed, "--format", "json"]).json()["saves"] as? [[String: Any]])
        #expect(saves.count == 12)
        #expect(saves.map { $0["exact"] as? Bool } == Array(repeating: false, count: 9) + [true, true, true])
        // The checkpoint wrote save 9's pages over what the store before it read: save 9's rows read wrong (3
        // deleted, not inserted), and it says why.
        #expect(
            (saves[8]["why"] as? String)?.hasPrefix(
                "the store before it is partial: a checkpoint copied frames 1–94 into the main file") == true,
            "\(saves[8])")
        for summary in saves.suffix(2) {
            let added = (summary["otherTables"] as? [[String: Any]])?.first { $0["table"] as? String == "SAVETEST" }
            #expect(added?["inserted"] as? Int == 3, "\(summary)")
        }
        // The states before save 9 read its page 1 (which names the new table) over their own: not one database.
        let partial = try CLI.run(["info", checkpointed, "--at-save", "8", "--format", "table"])
        #expect(
            partial.status == 2
                && partial.stderr.contains("as it was after save 8 it is partial (a checkpoint copied frames 1–94"),
            "\(partial.stderr)")
        #expect(partial.stderr.contains("so that SQLite cannot read it as one database"), "\(partial.stderr)")
        let exact = try CLI.run(["info", checkpointed, "--at-save", "9", "--format", "table"])
        #expect(
            exact.status == 0 && exact.lines.first?.hasSuffix(": exact") == true && !exact.stderr.contains("partial"),
            "\(exact.stdout)")
        // SQLite reading the log cut at each exact save sees the rows those saves left.
        let (wal, ends) = try Self.commitEnds(checkpointed)
        for (at, rows) in [(9, 3), (10, 6), (11, 9), (12, 12)] {
            #expect(
                try Self.tables(checkpointed, wal: wal, end: ends[at - 1], in: try TemporaryDirectory())["SAVETEST"]?
                    .count == rows)
        }

        // Every frame copied and no reader left: the next save starts the log over.
        try writer.inDatabase { _ = try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        try writer.write { try $0.execute(sql: "DELETE FROM SAVETEST WHERE Z_PK = 1") }
        try copyFiles(to: reset)
        try writer.close()
        let restarted = reset.file("Tasks.sqlite")
        let json = try CLI.run(["saves", restarted, "--format", "json"]).json()
        let after = try #require(json["saves"] as? [[String: Any]])
        let older = try #require(json["olderGeneration"] as? [[String: Any]])
        #expect(after.count == 1 && after.first?["exact"] as? Bool == true)
        #expect(
            older.count == 1 && older.first?["firstFrame"] as? Int == (after.first?["lastFrame"] as? Int).map { $0 + 1 }
        )
        let deleted = (after.first?["otherTables"] as? [[String: Any]])?.first { $0["table"] as? String == "SAVETEST" }
        #expect(deleted?["deleted"] as? Int == 1, "\(after)")
        let recovered = try CLI.run(["recover", restarted, "--format", "json"]).json()
        #expect((recovered["olderGeneration"] as? [[String: Any]])?.count == 1)
    }

    /// recover's table at 80 columns: "save 10 (read as after save 9)" wrapped beside a long author widened
    /// beside the times (four lines a row), and why the save is partial beside each row (seven). Each row now
    /// takes at most two, a long author under it, and why a save is partial is said once, under the table.
    @Test func recoverKeepsEachRowWithinTwoLinesAtEightyColumns() throws {
        let dir = try TemporaryDirectory()
        let copy = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/WALPending", prefix: "Tasks.sqlite")
        let store = dir.file("Tasks.sqlite")
        let writer = try DatabaseQueue(path: store)
        try writer.inDatabase { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        // Save 9 writes pages no save wrote before and names the authors at length, save 10 purges #27–#30,
        // save 11 writes new pages again.
        func save(_ first: Int, renaming: [(String, String)] = []) throws {
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS SAVETEST (Z_PK INTEGER PRIMARY KEY, ZDATA BLOB)")
                for key in first..<(first + 3) {
                    try db.execute(sql: "INSERT INTO SAVETEST VALUES (?, zeroblob(6000))", arguments: [key])
                }
                for (name, long) in renaming {
                    try db.execute(
                        sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = ? WHERE ZNAME = ?", arguments: [long, name])
                }
            }
        }
        try save(
            1,
            renaming: [
                ("app", "com.example.tasks.widget timeline provider reload"),
                ("shareExtension", "share extension (posting)"),
            ])
        try writer.write { db in
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN 27 AND 30")
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK BETWEEN 27 AND 30")
        }
        try save(4)
        // Save 12 also changes a page of the main file no save wrote before (Z_METADATA's), and a reader holds the
        // log at save 12 while a checkpoint copies it all: every state before it reads that page as save 12 left it.
        let reader = try HeldReader.open(store)
        try save(7)
        try writer.write { try $0.execute(sql: "UPDATE Z_METADATA SET Z_VERSION = Z_VERSION + 1") }
        try reader.inDatabase { try $0.execute(sql: "COMMIT") }
        let later = try HeldReader.open(store)
        try writer.inDatabase { _ = try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        try save(10)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: copy.file("Tasks.sqlite" + suffix))
        }
        try later.inDatabase { try $0.execute(sql: "COMMIT") }
        try later.close()
        try reader.close()
        try writer.close()

        let r = try CLI.run(
            ["recover", copy.file("Tasks.sqlite"), "--format", "table"], environment: ["COLUMNS": "80"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(r.stdout)")
        let first = try #require(lines.firstIndex { $0.hasPrefix("#27 ") })
        let end = try #require(lines[first...].firstIndex(of: ""))
        let rows = lines[first..<end].filter { $0.hasPrefix("#") }
        #expect(rows.count == 4 && end - first <= 2 * rows.count, "\(r.stdout)")
        #expect(rows.allSatisfy { $0.hasSuffix("  save 10, partial") }, "\(r.stdout)")
        #expect(r.stdout.contains("Author: com.example.tasks.widget timeline provider reload"), "\(r.stdout)")
        #expect(
            r.stdout.components(separatedBy: "What save 10 removed is read partially: the store after it is partial")
                .count == 2, "\(r.stdout)")
    }

    /// What recover brings back is given whole: every byte of data in JSON (photos-15.4.1's deleted
    /// PhotosSearchData keep 478 bytes, 32 of them before), each object with the time of its delete, and in
    /// the table a note when a value is cut, which --all shows whole.
    @Test(.enabled(if: RealStores.available)) func recoverGivesEveryByteAndTheTimeOfEachDelete() throws {
        let doc = try CLI.run(["recover", RealStores.photos15]).json()
        let objects = try #require(doc["objects"] as? [[String: Any]])
        #expect(!objects.isEmpty)
        for o in objects {
            for (name, value) in o["values"] as? [String: Any] ?? [:] {
                if let summary = value as? [String: Any] {
                    #expect(summary["hex"] == nil, "\(o["objectID"] ?? ""): \(name) is cut")
                }
            }
            // The time of the transaction that deleted it; a save that recorded none gives none.
            let recorded = !((o["transactionNumbers"] as? [Int]) ?? []).isEmpty
            #expect(
                recorded ? (o["deletedAt"] as? String)?.hasPrefix("2025-") == true : o["deletedAt"] is NSNull, "\(o)")
        }
        let data = objects.flatMap { ($0["values"] as? [String: Any] ?? [:]).values.compactMap { $0 as? String } }
            .filter { $0.hasPrefix("0x62706c697374") }
        #expect(data.contains { $0.count == 2 + 2 * 478 }, "no whole 478-byte value among \(data.map(\.count))")
        let table = try CLI.run(["recover", RealStores.photos15, "--format", "table"], environment: ["COLUMNS": "80"])
            .stdout
            .replacingOccurrences(of: "\n", with: " ")
        #expect(
            table.contains("478 bytes (0x62706c6973743030…)")
                && table.contains("--all shows them whole, and --format json gives every byte."))
        let all = try CLI.run(
            ["recover", RealStores.photos15, "--format", "table", "--all"], environment: ["COLUMNS": "80"]
        ).stdout
        #expect(!all.contains("bytes (0x") && !all.contains("--all shows them whole"), "\(all)")
        #expect(all.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    /// show of a transaction a save still in the -wal removed (a purge) names that save and the command that
    /// shows it, which does; a number no save removed is only said to be missing.
    @Test func showNamesTheSaveThatRemovedATransactionAndHowToSeeIt() throws {
        let store = Repository.fixtures + "/WALSaves/Tasks.sqlite"
        let gone = try CLI.run(["show", store, "3"])
        #expect(gone.status == 2)
        let command = ["show", store, "3", "--at-save", "4"]
        let said =
            "cdhist: \(store): no transaction 3 (the store has #11…#39); save 5 of its -wal removed it, and "
            + "the store as it was after save 4 still has it: cdhist \(command.joined(separator: " ")) shows it "
            + "(cdhist recover \(store) lists all that the saves removed)\n"
        #expect(gone.stderr == said, "\(gone.stderr)")
        let shown = try CLI.run(command + ["--format", "json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(try (shown.json()["transaction"] as? [String: Any])?["transactionNumber"] as? Int == 3)
        // Read as after save 5, the purge included, the same; past the newest, no save removed it.
        #expect(try CLI.run(["show", store, "3", "--at-save", "5"]).stderr.contains("save 5 of its -wal removed it"))
        let beyond = try CLI.run(["show", store, "99"]).stderr
        #expect(beyond == "cdhist: \(store): no transaction 99 (the store has #11…#39)\n")

        // Removed by the first save: the store before it is the main file alone, which recover reads.
        let dir = try TemporaryDirectory()
        let copy = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/AppGroup", prefix: "Tasks.sqlite")
        let original = dir.file("Tasks.sqlite")
        let reader = try HeldReader.open(original)
        let writer = try DatabaseQueue(path: original)
        try writer.write { db in
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= 5")
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= 5")
        }
        try writer.close()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: original + suffix, toPath: copy.file("Tasks.sqlite" + suffix))
        }
        try reader.inDatabase { try $0.execute(sql: "COMMIT") }
        try reader.close()
        let purged = copy.file("Tasks.sqlite")
        let first = try CLI.run(["show", purged, "2"])
        let toRecover = "; save 1 of its -wal removed it: cdhist recover \(purged) shows what the saves removed\n"
        #expect(first.status == 2 && first.stderr.hasSuffix(toRecover), "\(first.stderr)")
        let recover = try CLI.run(["recover", purged, "--format", "json"])
        let recovered = try #require(try recover.json()["transactions"] as? [[String: Any]])
        #expect(recovered.compactMap { $0["transactionNumber"] as? Int } == Array(1...5))
    }

    /// The demo store copied while the app ran: its 8 newest transactions are in 8 saves.
    @Test func theSavesOfTheWALPendingFixture() throws {
        let store = Repository.fixtures + "/WALPending/Tasks.sqlite"
        let saves = try #require(try CLI.run(["saves", store, "--format", "json"]).json()["saves"] as? [[String: Any]])
        #expect(saves.map { $0["transactionNumbers"] as? [Int] } == (27...34).map { [$0] })
        #expect(saves.allSatisfy { $0["exact"] as? Bool == true })
        for k in 1...8 {
            let info = try CLI.run(["info", store, "--at-save", "\(k)", "--format", "json"]).json()
            #expect(info["transactionCount"] as? Int == 26 + k && info["lastTransactionNumber"] as? Int == 26 + k)
        }
        let beyond = try CLI.run(["info", store, "--at-save", "9"])
        #expect(
            beyond.status == 2 && beyond.stderr == "cdhist: \(store): its -wal holds saves 1 to 8, not 9\n",
            "\(beyond.stderr)")
        let none = try CLI.run(["info", Repository.fixtures + "/AppGroup/Tasks.sqlite", "--at-save", "1"])
        #expect(none.status == 2 && none.stderr.contains("it has no -wal"), "\(none.stderr)")
        // A number below 1, negative ones too (an option's value, not an option): what a save number is, and where.
        let below = [
            (["info", store, "--at-save", "0"], "--at-save", "0"),
            (["show", store, "27", "--at-save", "-1"], "--at-save", "-1"),
            (["diff", store, store, "--old-save", "-2", "--new-save", "3"], "--old-save", "-2"),
        ]
        for (arguments, option, value) in below {
            let r = try CLI.run(arguments)
            let said = "takes a save number from 1 (cdhist saves STORE lists the saves of its -wal), not \(value)\n"
            #expect(r.status == 2 && r.stderr.hasPrefix("Error: \(option) " + said), "\(arguments): \(r.stderr)")
        }
    }
}

/// Each save of the real stores against SQLite's own reading of the `-wal` cut at that commit
/// (every table of every state read in full: a few seconds).
@Suite(.tags(.slow)) struct SavesOracleTests {
    /// A purge and a VACUUM, then a checkpoint of every frame: the states before most saves are partial, and some
    /// are not one database at all. recover says which saves it cannot read and recovers the rest.
    @Test(.enabled(if: RealStores.available)) func recoverSaysWhichPartialStatesItCannotRead() throws {
        let work = try TemporaryDirectory()
        let copy = try TemporaryDirectory()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                atPath: RealStores.photos + suffix, toPath: work.file("Photos.sqlite" + suffix))
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o644], ofItemAtPath: work.file("Photos.sqlite" + suffix))
        }
        let queue = try DatabaseQueue(path: work.file("Photos.sqlite"))
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            let newest = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID < ?", arguments: [newest - 3])
                try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK < ?", arguments: [newest - 3])
                return .commit
            }
            try db.execute(sql: "VACUUM")
            _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
        }
        // Copied while the connection is open: closing would checkpoint again and remove the -wal.
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                atPath: work.file("Photos.sqlite" + suffix), toPath: copy.file("Photos.sqlite" + suffix))
        }
        try queue.close()
        let r = try CLI.run(["recover", copy.file("Photos.sqlite"), "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let unreadable = try #require(try r.json()["unreadable"] as? [[String: Any]])
        #expect(!unreadable.isEmpty)
        #expect(
            unreadable.allSatisfy {
                ($0["why"] as? String)?.contains("so that SQLite cannot read it as one database") == true
            })
        let table = try CLI.run(
            ["recover", copy.file("Photos.sqlite"), "--format", "table"], environment: ["COLUMNS": "80"])
        #expect(table.stdout.contains("removed cannot be read"), "\(table.stdout)")
    }

    @Test(
        .enabled(if: RealStores.available),
        arguments: [(RealStores.photos15, 34), (RealStores.photos, 12), (RealStores.swiftData, 42)])
    func eachSaveIsWhatSQLiteReadsFromTheLogCutThere(store: String, commits: Int) throws {
        let dir = try TemporaryDirectory()
        let (wal, ends) = try SavesTests.commitEnds(store)
        #expect(ends.count == commits)
        let saves = try #require(try CLI.run(["saves", store, "--format", "json"]).json()["saves"] as? [[String: Any]])
        #expect(saves.count == commits)
        var before = try SavesTests.tables(store, wal: wal, end: 0, in: dir)
        for (k, end) in ends.enumerated() {
            let after = try SavesTests.tables(store, wal: wal, end: end, in: dir)
            let save = saves[k]
            // What the commit added and removed, table by table, as SQLite reads the two states.
            func diff(_ table: String) -> (inserted: [Int64], updated: [Int64], deleted: [Int64]) {
                let old = before[table] ?? [:]
                let new = after[table] ?? [:]
                return (
                    new.keys.filter { old[$0] == nil }.sorted(),
                    new.keys.filter { old[$0] != nil && old[$0] != new[$0] }.sorted(),
                    old.keys.filter { new[$0] == nil }.sorted()
                )
            }
            #expect(save["transactionNumbers"] as? [Int64] == diff("ATRANSACTION").inserted, "save \(k + 1)")
            #expect(save["transactionsRemoved"] as? [Int64] == diff("ATRANSACTION").deleted, "save \(k + 1)")
            #expect(
                save["changesAdded"] as? Int == diff("ACHANGE").inserted.count
                    && save["changesRemoved"] as? Int == diff("ACHANGE").deleted.count)
            var expected: [String: [Int]] = [:]
            let names = Dictionary(
                (after["Z_PRIMARYKEY"] ?? [:]).values.compactMap { row -> (Int64, String)? in
                    guard let number = Int64.fromDatabaseValue(row[0]), let name = String.fromDatabaseValue(row[1])
                    else { return nil }
                    return (number, name)
                }, uniquingKeysWith: { a, _ in a })
            for table in Set(before.keys).union(after.keys)
            where table.count > 1 && table.hasPrefix("Z") && table.dropFirst().first!.isLetter {
                let d = diff(table)
                for (kind, keys, rows) in [
                    (0, d.inserted, after[table]), (1, d.updated, after[table]), (2, d.deleted, before[table]),
                ] {
                    for key in keys {
                        let entity =
                            (rows?[key]).flatMap { $0.count > 1 ? Int64.fromDatabaseValue($0[1]) : nil }.flatMap {
                                names[$0]
                            } ?? table
                        expected[entity, default: [0, 0, 0]][kind] += 1
                    }
                }
            }
            let got = Dictionary(
                ((save["entities"] as? [[String: Any]]) ?? []).map {
                    (
                        $0["entity"] as? String ?? "",
                        [$0["inserted"] as? Int ?? -1, $0["updated"] as? Int ?? -1, $0["deleted"] as? Int ?? -1]
                    )
                }, uniquingKeysWith: { a, _ in a })
            #expect(got == expected, "save \(k + 1)")
            // Read as it was after the commit: SQLite's own counts of the copy cut there.
            let info = try CLI.run(["info", store, "--at-save", "\(k + 1)", "--format", "json"]).json()
            #expect(
                info["transactionCount"] as? Int == after["ATRANSACTION"]?.count
                    && info["changeCount"] as? Int == after["ACHANGE"]?.count, "save \(k + 1)")
            before = after
        }
    }

    /// Inside the window, every change shows the values its object had: an update's properties
    /// before and after, an insert's values, a deleted object's whole row.
    @Test(
        .enabled(if: RealStores.available),
        arguments: [
            (RealStores.photos15, "386", 48, 255, 40), (RealStores.photos, "506", 4, 31, 0),
            (RealStores.swiftData, "13", 14, 17, 5),
        ])
    func everyChangeInTheWindowHasItsValues(store: String, after: String, inserts: Int, updates: Int, deletes: Int)
        throws
    {
        let r = try CLI.run(["changes", store, "--values", "--after", "tx:" + after, "--format", "ndjson"])
        #expect(r.status == 0, "\(r.stderr)")
        var seen = ["insert": 0, "update": 0, "delete": 0]
        for line in r.lines {
            let change = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let type = change["changeType"] as? String else { continue }
            let before = change["valuesBefore"] as? [String: Any]
            let after = change["valuesAfter"] as? [String: Any]
            switch type {
            case "update":
                let names = Set(change["updatedProperties"] as? [String] ?? [])
                #expect(before.map { Set($0.keys) } == names && after.map { Set($0.keys) } == names, "\(change)")
            case "insert": #expect(after != nil && change["valuesBefore"] is NSNull, "\(change)")
            default: #expect(before != nil && change["valuesAfter"] is NSNull, "\(change)")
            }
            // Every value is read: a relationship that is its own inverse (Photos' Person.mergeCandidates)
            // from both columns of its join table, not left unread.
            for values in [before, after].compactMap({ $0 }) {
                let unread = values.filter { ($0.value as? [String: Any])?["unread"] != nil }.map(\.key)
                #expect(unread.isEmpty, "change \(change["changeID"] ?? "?"): \(unread) unread")
            }
            seen[type, default: 0] += 1
        }
        #expect(seen == ["insert": inserts, "update": updates, "delete": deletes])
        // export --values carries the same values in each format: members, columns, the message.
        let exported = try CLI.run(["export", store, "--values", "--after", "tx:" + after, "--format", "ndjson"])
        let exportedChanges = try exported.lines.flatMap { line -> [[String: Any]] in
            let tx = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return tx["changes"] as? [[String: Any]] ?? []
        }
        let listed = try r.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(exportedChanges.count == listed.count)
        for (a, b) in zip(exportedChanges, listed) {
            #expect(
                NSDictionary(dictionary: ["b": a["valuesBefore"] ?? NSNull(), "a": a["valuesAfter"] ?? NSNull()])
                    .isEqual(to: ["b": b["valuesBefore"] ?? NSNull(), "a": b["valuesAfter"] ?? NSNull()]),
                "change \(a["changeID"] ?? "?")")
        }
        let csv = try CLI.run(["export", store, "--values", "--after", "tx:" + after, "--format", "csv"])
        let header = try #require(csv.lines.first).split(separator: ",").map(String.init)
        #expect(header.suffix(5) == ["valuesBefore", "valuesAfter", "valuesSave", "valuesExact", "valuesNote"])
        let events = try CLI.run(["export", store, "--values", "--after", "tx:" + after, "--format", "timesketch"])
            .lines
        let withValues = events.filter { $0.contains("; save ") }.count
        #expect(withValues > 0 && withValues <= listed.count)
        if store == RealStores.photos15 {
            // Transaction #390 moves Asset p3 out of Moment p1, which it deletes.
            let show = try CLI.run(["show", store, "390", "--values", "--format", "json"]).json()
            let changes = try #require((show["transaction"] as? [String: Any])?["changes"] as? [[String: Any]])
            let asset = try #require(changes.first { $0["changeID"] as? Int == 1967 })
            #expect(
                (asset["valuesBefore"] as? [String: Any])?["moment"] as? String
                    == "x-coredata://\(RealStores.photosUUID)/Moment/p1")
            #expect((asset["valuesAfter"] as? [String: Any])?["moment"] is NSNull)
            let moment = try #require(changes.first { $0["changeID"] as? Int == 1966 })
            #expect(
                (moment["valuesBefore"] as? [String: Any])?["uuid"] as? String == "A41DA77C-9523-4A85-BEC4-6538CB7D45B2"
            )
        }
        // Before the window, the files do not hold the values: they are null, never guessed.
        let old = try CLI.run(["show", store, "1", "--values", "--format", "json"]).json()
        let first = ((old["transaction"] as? [String: Any])?["changes"] as? [[String: Any]])?.first
        #expect(first == nil || (first?["valuesBefore"] is NSNull && first?["valuesAfter"] is NSNull))
    }

    /// Every property a save changed has its bit in its update's ZCOLUMNS, and Photos' derived
    /// attribute is borne out as taking a slot by the changes at the slots after it.
    @Test(
        .enabled(if: RealStores.available),
        arguments: [(RealStores.photos15, 255), (RealStores.photos, 31), (RealStores.swiftData, 17)])
    func theSlotLayoutNamesEveryPropertyASaveChanged(store: String, updates: Int) throws {
        let r = try CLI.run(["saves", store, "--slots", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let check = try #require(try r.json()["slotCheck"] as? [String: Any])
        #expect(check["updates"] as? Int == updates)
        #expect((check["withoutBit"] as? [Any])?.isEmpty == true, "\(check)")
        #expect(check["changedProperties"] as? Int == check["named"] as? Int)
        let layouts = check["uncertainLayouts"] as? [[String: Any]] ?? []
        if store == RealStores.photos15 {
            let derived = try #require(layouts.first { $0["property"] as? String == "derivedCameraCaptureDevice" })
            #expect(
                derived["established"] as? Bool == true && (derived["supporting"] as? Int ?? 0) > 0
                    && derived["refuting"] as? Int == 0)
        }
    }
}
