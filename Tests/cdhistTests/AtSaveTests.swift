import Foundation
import GRDB
import TestSupport
import Testing

/// What a read command says about the state of the store it read: the save it was read at, in
/// every format, and a damaged or empty `-wal`.
@Suite struct AtSaveTests {
    /// A store, a transaction and an object that exist at save 2.
    struct Case: CustomTestStringConvertible, Sendable {
        var store: String
        var saves: Int
        var transaction: String
        var object: String
        var testDescription: String { URL(fileURLWithPath: store).deletingLastPathComponent().lastPathComponent }
    }

    static var cases: [Case] {
        [Case(store: Repository.fixtures + "/WALSaves/Tasks.sqlite", saves: 6, transaction: "35", object: "Task/p1")]
            + (RealStores.available
                ? [Case(store: RealStores.photos15, saves: 34, transaction: "387", object: "Asset/p1")] : [])
    }

    /// Every read command taking --at-save names the save in its first line (table), its atSave
    /// member (JSON), its first line (NDJSON) and its first column (CSV).
    @Test(arguments: cases) func everyReadCommandNamesTheSaveItReads(_ c: Case) throws {
        let store = c.store
        let commands: [[String]] = [
            ["info", store], ["transactions", store], ["changes", store], ["show", store, c.transaction],
            ["entities", store],
            ["authors", store], ["object", store, c.object], ["deleted", store], ["check", store], ["actors", store],
            ["cloudkit", store], ["timeline", store],
        ]
        for command in commands {
            let args = command + ["--at-save", "2"]
            let table = try CLI.run(args + ["--format", "table"], environment: ["COLUMNS": "80"])
            #expect(table.status <= 1, "\(args): \(table.stderr)")
            #expect(
                table.lines.first?.hasPrefix("At save 2 of \(c.saves), after #") == true,
                "\(args): \(table.lines.first ?? "")")
            let json = try CLI.run(args + ["--format", "json"])
            let at = try #require(try json.json()["atSave"] as? [String: Any], "\(args)")
            #expect(
                at["save"] as? Int == 2 && at["of"] as? Int == c.saves && at["exact"] as? Bool == true
                    && at["why"] is NSNull, "\(args)")
            #expect((at["newestTransaction"] as? Int ?? 0) > 0)
        }
        for command in [["transactions", store], ["changes", store], ["export", store], ["deleted", store]] {
            let args = command + ["--at-save", "2"]
            let ndjson = try CLI.run(args + ["--format", "ndjson"])
            let first = try #require(
                try JSONSerialization.jsonObject(with: Data((ndjson.lines.first ?? "").utf8)) as? [String: Any])
            #expect(
                first["kind"] as? String == "atSave" && (first["atSave"] as? [String: Any])?["save"] as? Int == 2,
                "\(args)")
            // Every record, read as RFC 4180 reads it (quoted cells may hold commas, quotes and line breaks), begins
            // with the column, and has as many cells as the header.
            let csv = try Self.records(try CLI.run(args + ["--format", "csv"]).stdout)
            #expect(csv.count > 1 && csv.first?.first == "atSave", "\(args): \(csv.first ?? [])")
            #expect(
                csv.dropFirst().allSatisfy {
                    $0.first?.hasPrefix("save 2 of \(c.saves), after #") == true && $0.count == csv[0].count
                },
                "\(args)")
        }
        // Without --at-save, none of it.
        let now = try CLI.run(["transactions", store, "--format", "json"])
        #expect(try now.json()["atSave"] == nil)
    }

    /// The records of CSV text, each a list of its cells.
    static func records(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(text).makeIterator()
        var pending: Character?
        while let c = pending ?? characters.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    let next = characters.next()
                    if next == "\"" {
                        cell.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    cell.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                record.append(cell)
                cell = ""
            } else if c == "\n" {
                record.append(cell)
                records.append(record)
                record = []
                cell = ""
            } else {
                cell.append(c)
            }
        }
        if !cell.isEmpty || !record.isEmpty { records.append(record + [cell]) }
        return records
    }

    /// A CI reporter's file read at a save takes no first line: it stays XML, SARIF or annotations.
    @Test func aReporterAtASaveStaysItsFormat() throws {
        let store = Repository.fixtures + "/WALSaves/Tasks.sqlite"
        for reporter in ["junit", "sarif", "github"] {
            let r = try CLI.run(["check", store, "--at-save", "2", "--reporter", reporter, "--fail-on", "info"])
            #expect(!r.stdout.contains("At save"), "\(reporter): \(r.stdout.prefix(200))")
            #expect(
                r.stdout.hasPrefix(reporter == "junit" ? "<?xml" : reporter == "sarif" ? "{" : "::"),
                "\(reporter): \(r.stdout.prefix(200))")
        }
    }

    /// A frame damaged in the middle of the -wal hides every commit after it from SQLite: each read
    /// says so once, in JSON too, check has a finding, and what is read is what SQLite reads.
    @Test func aDamagedFrameIsToldByEveryRead() throws {
        let source = RealStores.available ? RealStores.photos15 : Repository.fixtures + "/WALSaves/Tasks.sqlite"
        let dir = try TemporaryDirectory()
        let name = URL(fileURLWithPath: source).lastPathComponent
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: dir.file(name + suffix))
        }
        let store = dir.file(name)
        var wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store + "-wal")))
        let pageSize = Int(wal[8]) << 24 | Int(wal[9]) << 16 | Int(wal[10]) << 8 | Int(wal[11])
        let frames = (wal.count - 32) / (24 + pageSize)
        let middle = frames / 2
        wal[32 + (middle - 1) * (24 + pageSize) + 24 + 100] ^= 1
        try Data(wal).write(to: URL(fileURLWithPath: store + "-wal"))
        let info = try CLI.run(["info", store, "--format", "json"])
        #expect(info.status == 0)
        let warned = info.stderr.split(separator: "\n").filter {
            $0.contains("warning:") && $0.contains("-wal is damaged")
        }
        #expect(warned.count == 1 && warned[0].contains("frame \(middle)'s checksum does not match"), "\(info.stderr)")
        #expect((try info.json()["warnings"] as? [String])?.first?.contains("are not part of the store") == true)
        let check = try CLI.run(["check", store, "--format", "json"])
        let findings = try #require(try check.json()["findings"] as? [[String: Any]])
        let damaged = try #require(findings.first { $0["rule"] as? String == "wal-damaged" })
        #expect(damaged["severity"] as? String == "warning")
        #expect((damaged["data"] as? [String: Any])?["damagedFrame"] as? Int == middle)
        // SQLite, reading its own copy of the damaged files, counts what cdhist counts.
        let copy = try TemporaryDirectory()
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: copy.file(name + suffix))
        }
        let queue = try DatabaseQueue(path: copy.file(name))
        let count = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ATRANSACTION") }
        try queue.close()
        #expect(try info.json()["transactionCount"] as? Int == count)
        // Undamaged, no word of it.
        #expect(try !CLI.run(["info", source]).stderr.contains("damaged"))
    }

    /// A -wal of 0 bytes was reset with nothing written since: no save, and nothing wrong.
    @Test func anEmptyLogHoldsNoSave() throws {
        let dir = try TemporaryDirectory()
        let source = Repository.fixtures + "/WALSaves/Tasks.sqlite"
        for suffix in ["", "-shm"] {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: dir.file("Tasks.sqlite" + suffix))
        }
        let store = dir.file("Tasks.sqlite")
        #expect(FileManager.default.createFile(atPath: store + "-wal", contents: Data()))
        let saves = try CLI.run(["saves", store, "--format", "json"])
        let listed = try saves.json()["saves"] as? [Any]
        #expect(saves.status == 0 && listed?.isEmpty == true, "\(saves.stderr)")
        let table = try CLI.run(["saves", store, "--format", "table"], environment: ["COLUMNS": "80"])
        #expect(table.stdout.contains("The -wal is empty"), "\(table.stdout)")
        for command in [["recover", store], ["saves", store, "--slots"]] {
            let r = try CLI.run(command)
            #expect(r.status == 0, "\(command): \(r.stderr)")
        }
        let at = try CLI.run(["info", store, "--at-save", "1"])
        #expect(at.status == 2 && at.stderr.contains("its -wal holds no save, so there is no save 1"), "\(at.stderr)")
    }
}
