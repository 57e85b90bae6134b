import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// One object's life: `--object` against what SQLite finds for `(ZENTITY, ZENTITYPK)`,
/// and `object`'s current values against the row itself.
@Suite(.tags(.slow)) struct ObjectTests {
    /// The stores, and an object of each with several changes.
    static var cases: [(store: String, entity: String, key: Int)] {
        var cases = [
            (Repository.fixtures + "/Later/Tasks.sqlite", "Task", 3),
            (Repository.fixtures + "/AppGroup/Tasks.sqlite", "Project", 1),
        ]
        if RealStores.available {
            cases += [
                (RealStores.photos, "Asset", 1), (RealStores.photos, "Album", 5),
                (RealStores.swiftData, "CraftingRecipe", 3),
                (RealStores.photos15, "Album", 5), (RealStores.photos15, "FetchingAlbum", 6),
                (RealStores.photos15, "Asset", 1),
            ]
        }
        return cases
    }

    /// Columns of the real stores that are not `Z` + the name: FetchingAlbum's shares ZGENERICALBUM
    /// with Album's (Photos 15.4.1's index Z_FetchingAlbum_bySearchIndexRebuildState is on ZSEARCHINDEXREBUILDSTATE1).
    static let numberedColumns: [String: [String: String]] = [
        "FetchingAlbum": ["searchIndexRebuildState": "ZSEARCHINDEXREBUILDSTATE1"]
    ]

    /// A store's rows read with SQLite directly (a copy, so its WAL is read as it is).
    static func read<T>(_ store: String, _ body: (Database) throws -> T) throws -> T {
        let dir = try TemporaryDirectory()
        let copy = try WatchTests.copy(store, into: dir)
        let queue = try DatabaseQueue(path: copy)
        defer { try? queue.close() }
        return try queue.read(body)
    }

    @Test(arguments: cases.map { "\($0.store)|\($0.entity)|\($0.key)" }) func objectFilterFindsExactlyWhatSQLiteFinds(
        _ value: String
    ) throws {
        let parts = value.split(separator: "|").map(String.init)
        let (store, entity, key) = (parts[0], parts[1], Int(parts[2]) ?? 0)
        let (uuid, expected) = try Self.read(store) { db -> (String, [[Int]]) in
            let number =
                try Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [entity]) ?? -1
            let rows = try Row.fetchAll(
                db, sql: "SELECT Z_PK, ZTRANSACTIONID FROM ACHANGE WHERE ZENTITY = ? AND ZENTITYPK = ? ORDER BY Z_PK",
                arguments: [number, key])
            return (try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA") ?? "", rows.map { [$0[0], $0[1]] })
        }
        #expect(!expected.isEmpty)
        for id in [
            "\(entity)/p\(key)", "x-coredata://\(uuid)/\(entity)/p\(key)",
            "0xa5c1e6f2b3d41001 <x-coredata://\(uuid)/\(entity)/p\(key)>",
        ] {
            let changes = try CLI.run(["changes", store, "--object", id, "--format", "ndjson"])
            #expect(changes.status == 0, "\(changes.stderr)")
            let found = try WatchTests.objects(changes.lines).map {
                [$0["changeID"] as? Int ?? -1, $0["transactionNumber"] as? Int ?? -1]
            }
            #expect(found == expected, "\(id)")
            let transactions = try CLI.run(["transactions", store, "--object", id, "--format", "ndjson"]).lines
            #expect(
                try WatchTests.objects(transactions).compactMap { $0["transactionNumber"] as? Int }
                    == Array(Set(expected.map { $0[1] })).sorted())
        }
        // export: those transactions with only the object's changes.
        let export = try WatchTests.objects(try CLI.run(["export", store, "--object", "\(entity)/p\(key)"]).lines)
        #expect(
            export.flatMap { $0["changes"] as? [[String: Any]] ?? [] }.compactMap { $0["changeID"] as? Int }
                == expected.map { $0[0] })
    }

    @Test(arguments: cases.map { "\($0.store)|\($0.entity)|\($0.key)" }) func objectShowsTheRowAsSQLiteReadsIt(
        _ value: String
    ) throws {
        let parts = value.split(separator: "|").map(String.init)
        let (store, entity, key) = (parts[0], parts[1], Int(parts[2]) ?? 0)
        let r = try CLI.run(["object", store, "\(entity)/p\(key)"])
        #expect(r.status == 0, "\(r.stderr)")
        let document = try r.json()
        guard document["inStore"] as? Bool == true else {
            // The AppGroup fixture holds history only.
            #expect(
                store.hasSuffix("AppGroup/Tasks.sqlite")
                    && document["missing"] as? String == "Z\(entity.uppercased()) has no row \(key)")
            return
        }
        let table = try #require(document["table"] as? String)
        let values = try #require(document["values"] as? [String: Any])
        let row = try #require(
            try Self.read(store) {
                try Row.fetchOne($0, sql: "SELECT * FROM \(table) WHERE Z_PK = ?", arguments: [key])
            })
        #expect(document["version"] as? Int == row["Z_OPT"] as Int?)
        var compared = 0
        for (name, value) in values {
            // A numbered column where siblings in the table declare the name too (as the store's own indexes name them).
            let expected = Self.numberedColumns[entity]?[name] ?? "Z" + name.uppercased()
            guard let column = row.columnNames.first(where: { $0.uppercased() == expected }) else { continue }
            let stored = row[column] as DatabaseValue
            switch (stored.storage, value) {
            case (.null, _): #expect(value is NSNull, "\(name)")
            case (.string(let text), let shown as String): #expect(shown == text, "\(name)")
            case (.int64(let n), let shown as String):
                // A to-one relationship (its key in the URI) or a date kept as whole seconds since 2001.
                #expect(
                    shown.hasSuffix("/p\(n)") || Self.date(shown)?.timeIntervalSinceReferenceDate == Double(n),
                    "\(name): \(shown)")
            case (.int64(let n), let shown as NSNumber):  // true and false are 1 and 0
                #expect(shown.int64Value == n, "\(name): \(shown) vs \(n)")
            case (.double(let d), let shown as NSNumber): #expect(shown.doubleValue == d, "\(name)")
            case (.double(let d), let shown as String):
                let seconds = Self.date(shown)?.timeIntervalSinceReferenceDate
                #expect(seconds.map { abs($0 - d) < 0.001 } == true, "\(name): a date \(d) shown as \(shown)")
            case (.blob(let data), let shown as String):
                // A UUID attribute as its text, any other blob in hex.
                let uuid = UUID(uuidString: shown).map { u in withUnsafeBytes(of: u.uuid) { Data($0) } }
                #expect(
                    uuid == data || shown == "0x" + data.map { String(format: "%02x", $0) }.joined(),
                    "\(name): \(shown)")
            case (.blob(let data), let shown as [String: Any]): #expect(shown["bytes"] as? Int == data.count, "\(name)")
            default: Issue.record("\(name): \(stored) shown as \(value)")
            }
            compared += 1
        }
        #expect(compared >= 2, "only \(compared) values compared")
    }

    private static func date(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    /// An object changed across many transactions is written in chunks on every core, its
    /// changes plain where they decode without a warning: its transactions are those of export's
    /// JSON document (read in one go and decoded), and its summary adds them up.
    @Test func anObjectWrittenInChunksIsWhatOneReadGives() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Hot.sqlite")
        let fixture = FixtureStore(model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, transactions: [])
        // Task/p1: inserted in the 100th transaction, updated in two of every three after,
        // deleted in the 7,000th and inserted again in the next.
        try StoreWriter.write(
            fixture, to: path,
            generated: (
                12_000,
                { i in
                    var tx = Scenarios.benchmarkTransaction(i, changesPerTransaction: 1)
                    let type: ChangeType = i == 100 || i == 7_001 ? .insert : i == 7_000 ? .delete : .update
                    if i >= 100, i % 3 != 1 || type != .update {
                        tx.changes.insert(
                            .init(
                                entity: "Task", primaryKey: 1, type: type,
                                updated: type == .update ? ["title", "done"] : []), at: i % 2)
                    }
                    return tx
                }
            ))
        let object = try CLI.run(["object", path, "Task/p1", "--format", "json"])
        let export = try CLI.run(["export", path, "--object", "Task/p1", "--format", "json"])
        #expect(object.status == 0 && export.status == 0, "\(object.stderr)\(export.stderr)")
        let written = try #require(object.json()["transactions"] as? [[String: Any]])
        let reference = try #require(export.json()["transactions"] as? [[String: Any]])
        #expect(written.count > 7_000)
        #expect(
            written.count == reference.count
                && zip(written, reference).allSatisfy { NSDictionary(dictionary: $0).isEqual(to: $1) })
        let changes = reference.flatMap { tx in
            ((tx["changes"] as? [[String: Any]]) ?? []).map {
                (tx["transactionNumber"] as? Int, $0["changeType"] as? String)
            }
        }
        let summary = try #require(object.json()["summary"] as? [String: Any])
        #expect(summary["changes"] as? Int == changes.count && summary["transactions"] as? Int == reference.count)
        #expect(
            (summary["inserted"] as? [String: Any])?["transactionNumber"] as? Int
                == changes.first { $0.1 == "insert" }?.0)
        #expect((summary["last"] as? [String: Any])?["transactionNumber"] as? Int == changes.last?.0)
        #expect(summary["deleted"] is NSNull && changes.contains { $0.1 == "delete" })
        // Its changes listed in chunks too: JSON, and NDJSON with the format's tag on each line.
        let referenceChanges = reference.flatMap { ($0["changes"] as? [[String: Any]]) ?? [] }
        let listed = try #require(
            try CLI.run(["changes", path, "--object", "Task/p1", "--format", "json"]).json()["changes"]
                as? [[String: Any]])
        let lines = try CLI.run(["changes", path, "--object", "Task/p1", "--format", "ndjson"]).stdout.split(
            separator: "\n"
        ).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(lines.allSatisfy { $0["format"] as? String == "cdhist/1" })
        for list in [listed, lines.map { $0.filter { $0.key != "format" } }] {
            #expect(
                list.count == referenceChanges.count
                    && zip(list, referenceChanges).allSatisfy { NSDictionary(dictionary: $0).isEqual(to: $1) })
        }
        // And its transactions: the reference's without their changes.
        let transactions = try #require(
            try CLI.run(["transactions", path, "--object", "Task/p1", "--format", "json"]).json()["transactions"]
                as? [[String: Any]])
        #expect(
            transactions.count == reference.count
                && zip(transactions, reference).allSatisfy {
                    NSDictionary(dictionary: $0).isEqual(to: $1.filter { $0.key != "changes" })
                })
    }

    @Test func aDeletedObjectIsLabelledByItsTombstone() throws {
        let store = Repository.fixtures + "/Later/Tasks.sqlite"
        let json = try CLI.run(["object", store, "Task/p12", "--labels"]).json()
        #expect(json["inStore"] as? Bool == false && json["label"] as? String == "Call the bank")
        let text = try CLI.run(["object", store, "Task/p12", "--labels", "--format", "table"])
        #expect(text.lines.contains("Label:  'Call the bank'"), "\(text.stdout)")
        // Without a delete in the history there is nothing to label it by.
        let none = try CLI.run(["object", Repository.fixtures + "/AppGroup/Tasks.sqlite", "Task/p1", "--labels"]).json()
        #expect(none["inStore"] as? Bool == false)
    }

    @Test func laterFixtureObjectInFull() throws {
        let store = Repository.fixtures + "/Later/Tasks.sqlite"
        let r = try CLI.run(["object", store, "Task/p26", "--labels", "--utc"])
        let document = try r.json()
        #expect(document["object"] as? String == "x-coredata://\(Scenarios.appGroupUUID)/Task/p26")
        #expect(document["label"] as? String == "Water the plants")
        let values = try #require(document["values"] as? [String: Any])
        #expect(
            values["title"] as? String == "Water the plants" && values["done"] as? Bool == true
                && values["priority"] as? Int == 2)
        #expect(values["project"] as? String == "x-coredata://\(Scenarios.appGroupUUID)/Project/p1")
        #expect(values["due"] is NSNull)
        let tags = try #require(values["tags"] as? [String: Any])
        #expect(tags["count"] as? Int == 2)
        #expect(
            tags["first"] as? [String] == [
                "x-coredata://\(Scenarios.appGroupUUID)/Tag/p1", "x-coredata://\(Scenarios.appGroupUUID)/Tag/p3",
            ])
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["changes"] as? Int == 2 && summary["transactions"] as? Int == 2)
        #expect((summary["inserted"] as? [String: Any])?["transactionNumber"] as? Int == 35)
        #expect(summary["deleted"] is NSNull)

        // A to-many through the inverse's key, and a many-to-many seen from the other side.
        let project = try #require(try CLI.run(["object", store, "Project/p1"]).json()["values"] as? [String: Any])
        #expect((project["tasks"] as? [String: Any])?["count"] as? Int == 7)
        #expect(
            (project["members"] as? [String: Any])?["first"] as? [String] == [
                "x-coredata://\(Scenarios.appGroupUUID)/Person/p1"
            ])
        // A superentity's name finds the object of a subentity.
        let attachment = try CLI.run(["object", store, "Attachment/p2"]).json()
        #expect(
            attachment["entity"] as? String == "Document"
                && (attachment["values"] as? [String: Any])?["pageCount"] as? Int == 12)

        // A deleted object: its changes, its delete's tombstone, its label from it.
        let deleted = try CLI.run(
            ["object", store, "Task/p12", "--labels", "--format", "table", "--utc"], environment: ["COLUMNS": "80"])
        #expect(deleted.status == 0)
        #expect(
            deleted.stdout.contains("Row:    none: no longer in the store (ZTASK has no row 12)"), "\(deleted.stdout)")
        #expect(deleted.stdout.contains("Deleted in #37 (2025-03-06 09:20:00.000Z, app)."), "\(deleted.stdout)")
        #expect(deleted.stdout.contains("title=\"Call the bank\""))
        #expect(deleted.lines.allSatisfy { $0.count <= 80 })

        // The row of another entity sharing the table is not this entity's object.
        let wrong = try CLI.run(["object", store, "Photo/p2"])
        #expect(wrong.status == 2 && wrong.stdout.isEmpty)
        #expect(
            wrong.stderr
                == """
                cdhist: \(store): no object Photo/p2: ZATTACHMENT row 2 is a Document (Document/p2), not a Photo, \
                and no change to it in the history\n
                """
        )
    }

    @Test func labelsOnChangesAndShow() throws {
        let store = Repository.fixtures + "/Later/Tasks.sqlite"
        let changes = try WatchTests.objects(
            try CLI.run(["changes", store, "--after", "tx:34", "--labels", "--format", "ndjson"]).lines)
        let labels = changes.map { "\($0["changedObjectID"] as? String ?? "").\($0["label"] as? String ?? "nil")" }
        let prefix = "x-coredata://\(Scenarios.appGroupUUID)/"
        #expect(
            labels
                == [
                    "Task/p26.Water the plants", "Project/p1.Launch", "Task/p26.Water the plants",
                    "Task/p12.Call the bank",
                    "Task/p3.Book the hall", "Tag/p3.garden", "Tag/p3.garden",
                ].map { prefix + $0 })
        // An attribute chosen for the entity, and a wrong one refused.
        let chosen = try WatchTests.objects(
            try CLI.run([
                "changes", store, "--after", "tx:34", "--entity", "Task", "--label", "Task=priority",
                "--format", "ndjson",
            ]).lines)
        #expect(chosen.map { $0["label"] as? String ?? "nil" } == ["2", "2", "nil", "3"])
        let refused = try CLI.run(["changes", store, "--label", "Task=colour"])
        #expect(
            refused.status == 2
                && refused.stderr.hasPrefix(
                    "cdhist: --label 'Task=colour': Task has no attribute 'colour' (attributes: "),
            "\(refused.stderr)")
        let show = try CLI.run(["show", store, "38", "--labels", "--format", "table"], environment: ["COLUMNS": "100"])
        #expect(show.stdout.contains("'Book the hall'") && show.stdout.contains("Label"), "\(show.stdout)")
        // Without --labels, JSON has no label member.
        #expect(!(try CLI.run(["changes", store, "--limit", "1"]).stdout.contains("\"label\"")))
    }
}
