import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

/// What an examiner relies on: hashes before and after, Timesketch's events, labels in every
/// export format, the deleted-objects view, and no byte of the evidence changed by any of them.
@Suite(.tags(.slow)) struct EvidenceTests {
    /// The stores to examine: fixtures always, the shared real stores when they are there.
    static let stores: [String] =
        [Repository.fixtures + "/WALPending/Tasks.sqlite", Repository.fixtures + "/Later/Tasks.sqlite"]
        + (RealStores.available ? [RealStores.photos, RealStores.photos15, RealStores.swiftData] : [])

    /// A writable copy of `store` and its companion files, alone in a folder.
    static func copy(_ store: String, into dir: TemporaryDirectory) throws -> String {
        let url = URL(fileURLWithPath: store)
        try dir.copy(from: url.deletingLastPathComponent().path, prefix: url.lastPathComponent)
        return dir.file(url.lastPathComponent)
    }

    /// `sha256sum`'s (or `shasum -a 256`'s) digest of `path`.
    static func sha256sum(_ path: String) throws -> String {
        var r = try CLI.run(["sha256sum", path], executable: "/usr/bin/env")
        if r.status != 0 { r = try CLI.run(["shasum", "-a", "256", path], executable: "/usr/bin/env") }
        return String(r.stdout.prefix(64))
    }

    /// SQLite's own count of `ACHANGE` rows, WAL included, read from a copy.
    static func changeCount(_ store: String) throws -> Int {
        let dir = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: try copy(store, into: dir))
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ACHANGE") ?? -1 }
    }

    @Test(arguments: stores)
    func infoHashGivesWhatSha256sumGivesAndChangesNothing(store: String) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.copy(store, into: dir)
        let before = try StoresTests.snapshot(dir.path)
        let r = try CLI.run(["info", path, "--hash", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let evidence = try #require(try r.json()["evidence"] as? [String: Any])
        let files = try #require(evidence["files"] as? [[String: Any]])
        #expect(evidence["unchanged"] as? Bool == true)
        #expect(evidence["access"] as? String != nil)
        // Every file of the store is hashed, each as sha256sum hashes it, the same before and after.
        let names = Set(files.compactMap { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } })
        #expect(names == Set(before.keys))
        for file in files {
            let filePath = try #require(file["path"] as? String)
            let expected = try Self.sha256sum(filePath)
            let b = try #require(file["before"] as? [String: Any])
            let a = try #require(file["after"] as? [String: Any])
            #expect(b["sha256"] as? String == expected, "\(filePath)")
            #expect(a["sha256"] as? String == expected, "\(filePath)")
            #expect(b["size"] as? Int == before[URL(fileURLWithPath: filePath).lastPathComponent]?.count)
        }
        #expect(try StoresTests.snapshot(dir.path) == before)
    }

    @Test func infoHashesTheMergeStateFilesGiven() throws {
        let m = Repository.fixtures + "/MergeState"
        let r = try CLI.run([
            "info", m + "/Tasks.sqlite", "--hash", "--defaults", m + "/phtk.plist", "--token", "x=" + m + "/token.data",
            "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let files = try #require((try r.json()["evidence"] as? [String: Any])?["files"] as? [[String: Any]])
        let byRole = Dictionary(
            files.map { ($0["role"] as? String ?? "", ($0["before"] as? [String: Any])?["sha256"] as? String) },
            uniquingKeysWith: { a, _ in a })
        #expect(byRole["defaults"] == .some(try Self.sha256sum(m + "/phtk.plist")))
        #expect(byRole["token"] == .some(try Self.sha256sum(m + "/token.data")))
        // --defaults without --hash is a usage error; a file to hash that is not there, an error naming it.
        #expect(try CLI.run(["info", m + "/Tasks.sqlite", "--defaults", m + "/phtk.plist"]).status == 2)
        let missing = try CLI.run(["info", m + "/Tasks.sqlite", "--hash", "--defaults", m + "/nosuch.plist"])
        #expect(missing.status == 2 && missing.stderr.contains("nosuch.plist: no such file"), "\(missing.stderr)")
    }

    @Test func theReportsEvidenceSectionCarriesEachFilesHash() throws {
        let stores =
            RealStores.available
            ? [RealStores.photos, RealStores.photos15, RealStores.swiftData]
            : [Repository.fixtures + "/WALPending/Tasks.sqlite"]
        for store in stores {
            let dir = try TemporaryDirectory()
            let out = try TemporaryDirectory()
            let path = try Self.copy(store, into: dir)
            let before = try StoresTests.snapshot(dir.path)
            let r = try CLI.run(["report", path, "--out", out.file("report.html")])
            #expect(r.status == 0, "\(r.stderr)")
            let html = try String(contentsOfFile: out.file("report.html"), encoding: .utf8).replacingOccurrences(
                of: "<wbr>", with: "")
            let evidence = try #require(
                html.range(of: "<section id=\"evidence\">").map { String(html[$0.lowerBound...]) })
            for name in before.keys {
                #expect(evidence.contains(try Self.sha256sum(dir.file(name))), "\(store): \(name)")
                #expect(evidence.contains("\(before[name]?.count ?? -1) bytes"))
            }
            for text in ["Examined", "SQLite", "read-only", "every file the same before and after reading", "cdhist"] {
                #expect(evidence.contains(text), "\(text)")
            }
            #expect(try StoresTests.snapshot(dir.path) == before)
        }
    }

    @Test(arguments: stores)
    func timesketchGivesOneValidEventPerChange(store: String) throws {
        let r = try CLI.run(["export", store, "--format", "timesketch"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.lines
        #expect(lines.count == (try Self.changeCount(store)))
        var previous = Int64.min
        for line in lines {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let micro = try #require((event["timestamp"] as? NSNumber)?.int64Value)
            let datetime = try #require(event["datetime"] as? String)
            // The instant datetime names, to the microsecond.
            let seconds = try #require(ISO8601DateFormatter().date(from: String(datetime.prefix(19)) + "Z"))
                .timeIntervalSince1970
            #expect(
                Int64(seconds) * 1_000_000 + (Int64(datetime.dropFirst(20).prefix(6)) ?? -1) == micro,
                "\(datetime) \(micro)")
            #expect(event["timestamp_desc"] as? String == "Core Data change recorded")
            #expect(event["filename"] as? String == store)
            let message = try #require(event["message"] as? String)
            #expect(
                message.hasPrefix("\(event["entity"] as? String ?? "?") p\(event["entityPK"] as? Int ?? -1) "),
                "\(message)")
            // Transactions in order: the events of a store replay its history.
            #expect((event["transactionNumber"] as? NSNumber)?.int64Value ?? 0 >= previous)
            previous = (event["transactionNumber"] as? NSNumber)?.int64Value ?? 0
        }
        if SchemaValidator.available {
            let dir = try TemporaryDirectory()
            try r.stdout.write(toFile: dir.file("events.jsonl"), atomically: true, encoding: .utf8)
            let v = try SchemaValidator.validate([dir.file("events.jsonl")])
            #expect(v.status == 0 && v.stdout.hasPrefix("ok \(lines.count) "), "\(v.stdout)")
        }
    }

    @Test(arguments: stores)
    func exportLabelsAsChangesDoesInEveryFormat(store: String) throws {
        let changes = try CLI.run(["changes", store, "--labels", "--format", "ndjson"])
        #expect(changes.status == 0, "\(changes.stderr)")
        var expected: [Int: String] = [:]
        for line in changes.lines {
            let change = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let label = change["label"] as? String { expected[change["changeID"] as? Int ?? -1] = label }
        }
        func labels(_ changes: [[String: Any]]) -> [Int: String] {
            Dictionary(
                changes.compactMap { c in (c["label"] as? String).map { (c["changeID"] as? Int ?? -1, $0) } },
                uniquingKeysWith: { a, _ in a })
        }
        let nd = try CLI.run(["export", store, "--labels"])
        let ndChanges = try nd.lines.flatMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["changes"] as? [[String: Any]]
                ?? []
        }
        #expect(labels(ndChanges) == expected, "\(labels(ndChanges).count) of \(expected.count)")
        let json = try CLI.run(["export", store, "--labels", "--format", "json"])
        let transactions = try #require(try json.json()["transactions"] as? [[String: Any]])
        #expect(labels(transactions.flatMap { $0["changes"] as? [[String: Any]] ?? [] }) == expected, "JSON")
        let csv = try CLI.run(["export", store, "--labels", "--format", "csv", "--csv-raw"])
        let rows = CSVRows.parse(csv.stdout)
        let header = try #require(rows.first)
        let id = try #require(header.firstIndex(of: "changeID"))
        let label = try #require(header.firstIndex(of: "label"))
        let csvLabels = Dictionary(
            rows.dropFirst().compactMap { row -> (Int, String)? in
                guard row.count == header.count, let n = Int(row[id]), !row[label].isEmpty else { return nil }
                return (n, row[label])
            }, uniquingKeysWith: { a, _ in a })
        // An empty label is an empty cell, as no label is.
        let nonEmpty = expected.filter { !$0.value.isEmpty }
        #expect(
            csvLabels == nonEmpty,
            """
            \(csvLabels.filter { nonEmpty[$0.key] != $0.value }.prefix(3)) \
            \(nonEmpty.filter { csvLabels[$0.key] != $0.value }.prefix(3))
            """
        )
        if RealStores.available, store == RealStores.photos15 { #expect(expected.count > 100) }
    }

    @Test func labelsFromAnEarlierCopyNameObjectsWhoseRowsAreGone() throws {
        let old = try TemporaryDirectory()
        let new = try TemporaryDirectory()
        let oldPath = try Self.copy(Repository.fixtures + "/Later/Tasks.sqlite", into: old)
        let newPath = try Self.copy(Repository.fixtures + "/Later/Tasks.sqlite", into: new)
        let title =
            try CLI.run(["object", oldPath, "Task/p26", "--labels", "--format", "json"]).json()["label"] as? String
        #expect(title != nil)
        // Deleted outside Core Data: the row is gone, and history records no delete.
        let queue = try DatabaseQueue(path: newPath)
        try queue.write { try $0.execute(sql: "DELETE FROM ZTASK WHERE Z_PK = 26") }
        try queue.close()
        func gone(_ extra: [String]) throws -> [String: Any]? {
            let r = try CLI.run(["deleted", newPath, "--format", "json"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let objects = try #require(try r.json()["deleted"] as? [[String: Any]])
            return objects.first { $0["entity"] as? String == "Task" && $0["entityPK"] as? Int == 26 }
        }
        let without = try #require(try gone([]))
        #expect(without["status"] as? String == "gone-without-delete")
        #expect(without["label"] is NSNull)
        #expect(try gone(["--labels-from", oldPath])?["label"] as? String == title)
        let changes = try CLI.run([
            "changes", newPath, "--object", "Task/p26", "--labels-from", oldPath, "--format", "ndjson",
        ])
        #expect(
            !changes.lines.isEmpty && changes.lines.allSatisfy { $0.contains("\"label\":\"\(title ?? "")\"") },
            "\(changes.stdout)")
        // The earlier copy is an input: --out never replaces it.
        let oldBytes = try StoresTests.snapshot(old.path)
        let replacing = try CLI.run(["export", newPath, "--labels-from", oldPath, "--out", oldPath])
        #expect(replacing.status == 2 && replacing.stderr.contains(oldPath), "\(replacing.stderr)")
        #expect(try StoresTests.snapshot(old.path) == oldBytes)
        // A copy of another store is refused.
        let other = try CLI.run(["changes", newPath, "--labels-from", Repository.fixtures + "/Purged/Tasks.sqlite"])
        #expect(other.status == 2 && other.stderr.contains("--labels-from"), "\(other.stderr)")
    }

    @Test(
        arguments: [Repository.fixtures + "/AppGroup/Tasks.sqlite"]
            + (RealStores.available ? [RealStores.photos, RealStores.photos15] : []))
    func deletedListsTheDeletesSQLiteFindsWithTheirTombstones(store: String) throws {
        let dir = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: try Self.copy(store, into: dir))
        defer { try? queue.close() }
        // SQLite's own answer: every delete with the text of its tombstone columns; every object
        // changed in history whose row is gone and that no delete names.
        let (deletes, gone) = try queue.read { db -> ([String: Set<String>], Set<String>) in
            let tombstones = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%'")
            var deletes: [String: Set<String>] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM ACHANGE WHERE ZCHANGETYPE = 2") {
                let key = "\(row["ZENTITY"] as Int64)/\(row["ZENTITYPK"] as Int64)/\(row["ZTRANSACTIONID"] as Int64)"
                deletes[key] = Set(
                    tombstones.compactMap { column -> String? in
                        if case .string(let text) = (row[column] as DatabaseValue).storage { return text }
                        return nil
                    })
            }
            var supers: [Int64: Int64] = [:]
            var names: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
                supers[row[0]] = row[2]
                names[row[0]] = row[1]
            }
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            var gone: Set<String> = []
            for row in try Row.fetchAll(
                db, sql: "SELECT ZENTITY, ZENTITYPK FROM ACHANGE GROUP BY 1, 2 HAVING MAX(ZCHANGETYPE = 2) = 0")
            {
                var root: Int64 = row[0]
                while let s = supers[root], s != 0 { root = s }
                let table = "Z" + (names[root] ?? "").uppercased()
                guard tables.contains(table),
                    try Int.fetchOne(db, sql: "SELECT 1 FROM \"\(table)\" WHERE Z_PK = ?", arguments: [row[1] as Int64])
                        == nil
                else { continue }
                gone.insert("\(row[0] as Int64)/\(row[1] as Int64)")
            }
            return (deletes, gone)
        }
        let r = try CLI.run(["deleted", store, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try r.json()["deleted"] as? [[String: Any]])
        var listedDeletes: [String: Set<String>] = [:]
        var listedGone: Set<String> = []
        for object in objects {
            let key = "\(object["entityNumber"] as? Int ?? -1)/\(object["entityPK"] as? Int ?? -1)"
            if object["status"] as? String == "deleted" {
                let tombstone = object["tombstone"] as? [String: Any] ?? [:]
                listedDeletes[key + "/\(object["transactionNumber"] as? Int ?? -1)"] = Set(
                    tombstone.values.compactMap { $0 as? String })
            } else {
                listedGone.insert(key)
            }
        }
        #expect(!deletes.isEmpty)
        // Every delete, with every text its tombstone holds (a UUID stored as a blob is shown too).
        #expect(Set(listedDeletes.keys) == Set(deletes.keys))
        for (key, texts) in deletes { #expect(texts.isSubset(of: listedDeletes[key] ?? []), "\(key)") }
        #expect(listedGone == gone)
        // Entity by entity, by name.
        let entities = objects.filter { $0["status"] as? String == "deleted" }.compactMap { $0["entity"] as? String }
        #expect(entities == entities.sorted())
        // CSV tells the two kinds apart in its status column; a table gives the gone objects a
        // section of their own, with their last change.
        let csv = try CLI.run(["deleted", store, "--format", "csv"]).lines
        #expect(csv.first?.hasPrefix("status,entity,entityNumber,entityPK,") == true, "\(csv.first ?? "")")
        #expect(csv.dropFirst().filter { $0.hasPrefix("deleted,") }.count == objects.count - gone.count)
        #expect(csv.dropFirst().filter { $0.hasPrefix("gone-without-delete,") }.count == gone.count)
        let table = try CLI.run(["deleted", store, "--format", "table"], environment: ["COLUMNS": "80"]).lines
        let title = table.firstIndex { $0.hasPrefix("Gone without a recorded delete") }
        #expect((title != nil) == !gone.isEmpty)
        if let title {
            #expect(table[title...].contains { $0.hasPrefix("Entity") && $0.contains("Last change") })
            #expect(!table[..<title].contains { $0.contains("Last change") })
        }
    }

    /// Thousands of objects gone, formatted in batches on another core: every format lists each
    /// once, in order (entity name, then key), with how many changes history holds of it and its
    /// first and last transactions, as grouping every change in the test gives them.
    @Test func deletedListsThousandsOfGoneObjectsInOrderInEveryFormat() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Gone.sqlite")
        // Tasks and projects inserted; some tasks updated again later, some deleted; two tasks
        // still in their table.
        let rows = [
            FixtureStore.Row(entity: "Task", primaryKey: 4, values: ["title": .text("kept")]),
            FixtureStore.Row(entity: "Task", primaryKey: 1_000, values: ["title": .text("kept too")]),
        ]
        let fixture = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, transactions: [], rows: rows)
        try StoreWriter.write(
            fixture, to: path,
            generated: (
                3_000,
                { i in
                    var tx = Scenarios.benchmarkTransaction(i, changesPerTransaction: 1)
                    let again: FixtureStore.Change =
                        i % 40 == 0
                        ? .init(entity: "Task", primaryKey: Int64(i / 3 * 2), type: .delete)
                        : .init(entity: "Task", primaryKey: Int64(i / 3 * 2), type: .update, updated: ["title"])
                    tx.changes = [
                        .init(entity: i % 2 == 0 ? "Task" : "Project", primaryKey: Int64(i), type: .insert), again,
                    ]
                    return tx
                }
            ))
        // Every change grouped by object, here.
        struct Gone: Equatable { var entity: String, pk: Int, count: Int, first: Int, last: Int }
        var config = Configuration()
        config.readonly = true
        let expected: [Gone] = try DatabaseQueue(path: path, configuration: config).read { db in
            let names = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY").map {
                    ($0[0] as Int, $0[1] as String)
                })
            let present = Set(try Int.fetchAll(db, sql: "SELECT Z_PK FROM ZTASK").map { "Task/\($0)" })
            var groups: [String: Gone] = [:]
            var deleted: Set<String> = []
            for row in try Row.fetchAll(db, sql: "SELECT ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCHANGETYPE FROM ACHANGE")
            {
                let entity = names[row[0] as Int] ?? "?"
                let pk = row[1] as Int
                let tx = row[2] as Int
                let key = "\(entity)/\(pk)"
                if row[3] as Int == 2 { deleted.insert(key) }
                var group = groups[key] ?? Gone(entity: entity, pk: pk, count: 0, first: tx, last: tx)
                group.count += 1
                group.first = min(group.first, tx)
                group.last = max(group.last, tx)
                groups[key] = group
            }
            return groups.filter { !deleted.contains($0.key) && !present.contains($0.key) }.values.sorted {
                ($0.entity, $0.pk) < ($1.entity, $1.pk)
            }
        }
        #expect(expected.count > 2_500 && expected.contains { $0.count > 1 })
        let ndjson = try CLI.run(["deleted", path, "--format", "ndjson"])
        #expect(ndjson.status == 0, "\(ndjson.stderr)")
        let lines = try ndjson.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let listed = lines.filter { $0["status"] as? String == "gone-without-delete" }.map {
            Gone(
                entity: $0["entity"] as? String ?? "", pk: $0["entityPK"] as? Int ?? -1,
                count: $0["changeCount"] as? Int ?? -1,
                first: $0["firstTransactionNumber"] as? Int ?? -1, last: $0["transactionNumber"] as? Int ?? -1)
        }
        #expect(listed == expected)
        #expect(lines.filter { $0["status"] as? String == "deleted" }.count == 3_000 / 40)
        // The JSON list holds the same records; CSV and the table the same objects, in order.
        let json = try #require(
            try CLI.run(["deleted", path, "--format", "json"]).json()["deleted"] as? [[String: Any]])
        #expect(
            json.count == lines.count
                && zip(json, lines).allSatisfy {
                    NSDictionary(dictionary: $0).isEqual(to: $1.filter { $0.key != "format" })
                })
        let csv = try CLI.run(["deleted", path, "--format", "csv"]).lines.filter {
            $0.hasPrefix("gone-without-delete,")
        }
        #expect(csv.map { $0.split(separator: ",")[3] } == expected.map { "\($0.pk)"[...] })
        let table = try CLI.run(["deleted", path, "--format", "table", "--all"], environment: ["COLUMNS": "200"]).lines
        let title = try #require(
            table.firstIndex { $0.hasPrefix("Gone without a recorded delete") }, "\(table.prefix(3))")
        // A row's first line (a long history wraps onto lines of its own, indented).
        let tableRows = table[(title + 2)...].filter { !$0.hasPrefix(" ") }.map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(tableRows.map { $0.prefix(2).joined(separator: "/") } == expected.map { "\($0.entity)/\($0.pk)" })
    }

    @Test func deletedReadsAStoreOfMoreTablesThanSQLiteNestsExpressions() throws {
        // 1,200 entities in 1,080 tables: one condition per table, past SQLite's depth of 1,000.
        let dir = try TemporaryDirectory()
        try LimitStores.writeManyEntities(to: dir.file("Many.sqlite"), count: 1200)
        let r = try CLI.run(["deleted", dir.file("Many.sqlite"), "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try r.json()["deleted"] as? [[String: Any]])
        #expect(objects.count == 1200 && objects.allSatisfy { $0["status"] as? String == "deleted" })
        #expect(
            objects.first?["entity"] as? String == "Entity0000" && objects.last?["entity"] as? String == "Entity1199")
    }

    @Test(
        .enabled(if: RealStores.available),
        arguments: RealStores.available ? [RealStores.photos, RealStores.photos15, RealStores.swiftData] : [])
    func noEvidenceCommandChangesAByteOfARealStore(store: String) throws {
        let dir = try TemporaryDirectory()
        let out = try TemporaryDirectory()
        let path = try Self.copy(store, into: dir)
        let earlier = try TemporaryDirectory()
        let earlierPath = try Self.copy(store, into: earlier)
        let before = try StoresTests.snapshot(dir.path)
        let runs: [[String]] = [
            ["info", path, "--hash"], ["export", path, "--format", "timesketch"], ["export", path, "--labels"],
            ["export", path, "--labels", "--format", "json"], ["export", path, "--labels", "--format", "csv"],
            ["export", path, "--format", "timesketch", "--labels-from", earlierPath], ["deleted", path],
            ["deleted", path, "--labels-from", earlierPath, "--format", "table"],
            ["report", path, "--out", out.file("r.html")],
        ]
        for args in runs {
            let r = try CLI.run(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(try StoresTests.snapshot(dir.path) == before, "\(args) changed \(store)")
        }
    }
}
