import Foundation
import GRDB
import TestSupport
import Testing

/// The fixtures whose saves have a known truth (fixtures/README.md): what cdhist reads from their
/// `-wal` is what was written, value for value, and where a checkpoint has overwritten the past
/// it says so, while everything it calls exact equals the same save read from the log without
/// the checkpoint.
@Suite struct SaveFixtureTests {
    static let saves = Repository.fixtures + "/WALSaves/Tasks.sqlite"
    static let checkpointed = Repository.fixtures + "/WALCheckpointed/Tasks.sqlite"
    static let reset = Repository.fixtures + "/WALReset/Tasks.sqlite"

    static func json(_ args: [String]) throws -> [String: Any] {
        let r = try CLI.run(args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return try r.json()
    }

    @Test func eachSaveIsListedWithWhatItChanged() throws {
        let saves = try #require(try Self.json(["saves", Self.saves, "--format", "json"])["saves"] as? [[String: Any]])
        #expect(saves.map { $0["transactionNumbers"] as? [Int] } == [[35], [36], [37], [38], [], [39]])
        #expect(saves.map { $0["transactionsRemoved"] as? [Int] } == [[], [], [], [], Array(1...10), []])
        #expect(saves.allSatisfy { $0["exact"] as? Bool == true && $0["withoutHistory"] as? Bool == false })
        let task = saves.map { ($0["entities"] as? [[String: Any]])?.first { $0["entity"] as? String == "Task" } }
        #expect(
            task.map { [$0?["inserted"] as? Int, $0?["updated"] as? Int, $0?["deleted"] as? Int] }
                == [[0, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [nil, nil, nil], [0, 1, 0]])
    }

    /// Every change of #35–#39 with the values it was written with.
    @Test func theValuesBeforeAndAfterAreThoseWritten() throws {
        let r = try CLI.run(["changes", Self.saves, "--values", "--after", "tx:34", "--format", "ndjson"])
        #expect(r.status == 0, "\(r.stderr)")
        let changes = try r.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        func values(_ pk: Int, _ side: String) -> [String: Any]? {
            changes.first { $0["entityPK"] as? Int == pk }?[side] as? [String: Any]
        }
        #expect(changes.count == 5)
        #expect(
            values(1, "valuesBefore")?["title"] as? String == "Plan the launch"
                && values(1, "valuesAfter")?["title"] as? String == "Plan the autumn launch")
        #expect(
            values(2, "valuesBefore")?["done"] as? Bool == false && values(2, "valuesAfter")?["done"] as? Bool == true)
        // The deleted task's whole row (its tombstone keeps only title and uuid).
        let deleted = try #require(values(5, "valuesBefore"))
        #expect(
            deleted["title"] as? String == "Task 5" && deleted["priority"] as? Int == 1
                && deleted["done"] as? Bool == false)
        #expect(deleted["project"] as? String == "x-coredata://5A0E3F27-91C4-4D6B-8E2A-7C1F0B9D4E36/Project/p1")
        #expect(changes.first { $0["entityPK"] as? Int == 5 }?["valuesAfter"] is NSNull)
        let inserted = try #require(values(27, "valuesAfter"))
        #expect(inserted["title"] as? String == "Buy stamps" && inserted["priority"] as? Int == 2)
        #expect(changes.first { $0["entityPK"] as? Int == 27 }?["valuesBefore"] is NSNull)
        #expect(
            values(3, "valuesBefore").map { NSDictionary(dictionary: $0) } == ["title": "Book the hall", "priority": 3])
        #expect(
            values(3, "valuesAfter").map { NSDictionary(dictionary: $0) } == [
                "title": "Book the town hall", "priority": 1,
            ])
    }

    /// The purge comes back transaction for transaction, change for change, as export wrote
    /// them before it; the deleted task with every value its row had.
    @Test func thePurgeAndTheDeleteAreRecoveredWhole() throws {
        let export = try CLI.run(["export", Self.saves, "--at-save", "4", "--before", "tx:11"])
        // The first line says which save the export was read at.
        #expect(export.lines.first?.contains("\"kind\":\"atSave\"") == true)
        let before = export.lines.dropFirst()
        #expect(before.count == 10)
        let recovered = try Self.json(["recover", Self.saves, "--format", "json"])
        let transactions = try #require(recovered["transactions"] as? [[String: Any]])
        #expect(transactions.count == 10)
        for (line, found) in zip(before, transactions) {
            var expected = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            expected["format"] = nil
            var got = found
            let from = got.removeValue(forKey: "recoveredFrom") as? [String: Any]
            #expect(from?["removedBy"] as? Int == 5 && from?["save"] as? Int == 4 && from?["exact"] as? Bool == true)
            #expect(NSDictionary(dictionary: got).isEqual(to: expected), "#\(expected["transactionNumber"] ?? "?")")
        }
        let objects = try #require(recovered["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        let task = try #require(objects.first)
        #expect(
            task["entity"] as? String == "Task" && task["deletedBy"] as? Int == 3
                && task["transactionNumbers"] as? [Int] == [37])
        let values = try #require(task["values"] as? [String: Any])
        #expect(
            values["title"] as? String == "Task 5" && values["priority"] as? Int == 1
                && (values["due"] as? String)?.hasPrefix("2025-03-08") == true)
        #expect((recovered["olderGeneration"] as? [Any])?.isEmpty == true)
    }

    /// With the checkpoint, the saves cdhist calls exact read as the same saves without it (and as
    /// SQLite reads the log cut there); the one before the checkpoint's reach is partial.
    @Test func aCheckpointMakesOnlyWhatItOverwrotePartial() throws {
        let listed = try #require(
            try Self.json(["saves", Self.checkpointed, "--format", "json"])["saves"] as? [[String: Any]])
        let truth = try #require(try Self.json(["saves", Self.saves, "--format", "json"])["saves"] as? [[String: Any]])
        #expect(listed.map { $0["exact"] as? Bool } == [false, true, true, true, true, true])
        #expect(
            (listed.first?["why"] as? String)?.hasPrefix(
                "the store before it is partial: a checkpoint copied frames 1–44 into the main file") == true,
            "\(listed.first ?? [:])")
        #expect(try Self.json(["saves", Self.checkpointed, "--format", "json"])["backfilledFrames"] as? Int == 44)
        // What the partial save changed is not known: its pages differ by what the checkpoint overwrote too
        // (they read as "3 transactions removed, Task +1 ~1 −1" where it added #35 and removed nothing).
        for key in [
            "transactionNumbers", "transactionsRemoved", "changesAdded", "changesRemoved", "entities", "otherTables",
        ] {
            #expect(listed.first?[key] is NSNull, "\(key): \(listed.first?[key] ?? "absent")")
        }
        let row = try CLI.run(["saves", Self.checkpointed, "--format", "table"], environment: ["COLUMNS": "80"]).lines
            .first { $0.hasPrefix("   1  ") }
        #expect(
            row?.split(separator: " ") == ["1", "1–11", "11", "unknown", "unknown", "partial"], "\(row ?? "no row")")
        let dir = try TemporaryDirectory()
        let (wal, ends) = try SavesTests.commitEnds(Self.checkpointed)
        let (truthWAL, truthEnds) = try SavesTests.commitEnds(Self.saves)
        #expect(ends.count == 6 && truthEnds.count == 6)
        for (k, summary) in listed.enumerated() where summary["exact"] as? Bool == true {
            for key in ["transactionNumbers", "transactionsRemoved", "entities", "changesAdded", "changesRemoved"] {
                #expect(
                    NSDictionary(dictionary: [key: summary[key] ?? NSNull()]).isEqual(to: [
                        key: truth[k][key] ?? NSNull()
                    ]), "save \(k + 1): \(key)")
            }
            let state = try SavesTests.tables(Self.checkpointed, wal: wal, end: ends[k], in: dir)
            let expected = try SavesTests.tables(Self.saves, wal: truthWAL, end: truthEnds[k], in: dir)
            #expect(state == expected, "save \(k + 1)")
            let at = try CLI.run(["export", Self.checkpointed, "--at-save", "\(k + 1)"])
            #expect(
                at.stdout == (try CLI.run(["export", Self.saves, "--at-save", "\(k + 1)"])).stdout, "save \(k + 1)")
        }
        // The purge after the checkpoint still comes back whole.
        let recovered = try Self.json(["recover", Self.checkpointed, "--format", "json"])
        #expect((recovered["transactions"] as? [Any])?.count == 10)
    }

    @Test func aResetLeavesOneSaveAndAnEarlierGeneration() throws {
        let document = try Self.json(["saves", Self.reset, "--format", "json"])
        let saves = try #require(document["saves"] as? [[String: Any]])
        #expect(
            saves.count == 1 && saves.first?["transactionNumbers"] as? [Int] == [40]
                && saves.first?["exact"] as? Bool == true)
        let older = try #require(document["olderGeneration"] as? [[String: Any]])
        #expect(older.count == 1)
        #expect(
            older.first?["firstFrame"] as? Int == 12 && older.first?["lastFrame"] as? Int == 64
                && older.first?["commits"] as? Int == 5)
        let changes = try CLI.run(["changes", Self.reset, "--values", "--after", "tx:39", "--format", "ndjson"])
        let line = try #require(changes.lines.first)
        let change = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(
            (change["valuesBefore"] as? [String: Any])?["done"] as? Bool == true
                && (change["valuesAfter"] as? [String: Any])?["done"] as? Bool == false)
        // What the reset took is gone: the purge and the delete are not recovered, the old frames are listed.
        let recovered = try Self.json(["recover", Self.reset, "--format", "json"])
        #expect(
            (recovered["transactions"] as? [Any])?.isEmpty == true && (recovered["objects"] as? [Any])?.isEmpty == true)
        #expect((recovered["olderGeneration"] as? [Any])?.count == 1)
    }
}
