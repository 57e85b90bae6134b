import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// The export writes the changes that decode without a warning from bytes formatted once
/// per entity (names, object-ID prefix, property names); what it writes must be what the
/// decoded changes give. `export --format json` decodes every change: it is the reference.
@Suite struct PlainExportTests {
    /// `name` with what JSON escapes and CSV quotes: a comma, a backslash and a quote
    /// (`QQ` here, `&quot;` in the model's XML).
    private static func odd(_ name: String) -> String { name + ",\\QQ" }

    /// The demo store's model with every entity and property renamed by ``odd(_:)``.
    private static let oddModel = ManagedObjectModel(
        entities: Scenarios.tasksModel.entities.map { e in
            EntityDescription(
                name: odd(e.name), superentityName: e.superentityName.map(odd), isAbstract: e.isAbstract,
                properties: e.properties.map { p in
                    var kind = p.kind
                    if case .relationship(var r) = kind {
                        r.destinationEntityName = r.destinationEntityName.map(odd)
                        r.inverseName = r.inverseName.map(odd)
                        kind = .relationship(r)
                    }
                    return PropertyDescription(
                        name: odd(p.name), kind: kind, isTransient: p.isTransient, isOptional: p.isOptional)
                },
                userInfo: e.userInfo.mapValues {
                    $0.split(separator: ",").map { odd(String($0)) }.joined(separator: ",")
                })
        }, versionIdentifiers: ["odd"])

    @Test func plainChangesAreWrittenAsDecodedOnes() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Odd.sqlite")
        // Updates of both slots of a to-one to an entity with subentities (foreign key and
        // entity column) and of a to-one whose inverse is ordered (foreign key and order).
        let layout = try #require(SlotLayout(entity: "Task", model: Scenarios.tasksModel))
        func columns(_ names: Set<String>, skippingFirst: Bool = false) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: layout.byteLength)
            var seen: Set<String> = []
            for slot in layout.slots where names.contains(slot.propertyName) {
                if seen.insert(slot.propertyName).inserted && skippingFirst { continue }
                bytes[slot.index / 8] |= 0x80 >> UInt8(slot.index % 8)
            }
            return bytes
        }
        #expect(layout.slots.filter { $0.propertyName == "attachment" }.count == 2)
        #expect(layout.slots.filter { $0.propertyName == "project" }.count == 2)
        var history = Scenarios.appGroupHistory()
        history.append(
            .init(
                timestamp: Scenarios.baseTime + 1e6, author: "odd", contextName: "c",
                changes: [
                    .init(
                        entity: "Task", primaryKey: 1, type: .update,
                        rawColumns: columns(["attachment", "title", "project"])),
                    .init(
                        entity: "Task", primaryKey: 2, type: .update,
                        rawColumns: columns(["attachment", "project"], skippingFirst: true)),
                    .init(entity: "Photo", primaryKey: 1, type: .insert),
                ]))
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, writesModelCache: false,
                journalMode: .rollback, transactions: history), to: store)
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            for e in Scenarios.tasksModel.entities {
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = ? WHERE Z_NAME = ?",
                    arguments: [Self.odd(e.name).replacingOccurrences(of: "QQ", with: "\""), e.name])
            }
        }
        try queue.close()
        let model = dir.file("Odd.xcdatamodel")
        try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
        try Data(XcdatamodelWriter.contents(Self.oddModel).replacingOccurrences(of: "QQ", with: "&quot;").utf8)
            .write(to: URL(fileURLWithPath: model + "/contents"))

        let reference = try CLI.run(["export", store, "--model", model, "--format", "json"])
        #expect(reference.status == 0, "\(reference.stderr)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(reference.stdout.utf8)) as? [String: Any])
        let transactions = try #require(document["transactions"] as? [[String: Any]])
        let expected = transactions.flatMap { ($0["changes"] as? [[String: Any]]) ?? [] }
        // Odd names throughout, inserts and updates without warnings (so written plainly), shared slots.
        #expect(
            expected.contains {
                ($0["entity"] as? String) == "Task,\\\"" && $0["changeType"] as? String == "update"
                    && $0["warnings"] == nil
            })
        #expect(
            expected.contains {
                ($0["updatedProperties"] as? [String]) == ["attachment,\\\"", "project,\\\"", "title,\\\""]
                    && ($0["updatedSlots"] as? [Int])?.count == 5
            })
        #expect(
            expected.contains {
                ($0["updatedProperties"] as? [String]) == ["attachment,\\\"", "project,\\\""]
                    && ($0["updatedSlots"] as? [Int])?.count == 2
            })
        #expect(expected.contains { ($0["changedObjectID"] as? String)?.hasSuffix("/Photo,\\\"/p1") == true })

        let ndjson = try CLI.run(["export", store, "--model", model])
        #expect(ndjson.status == 0, "\(ndjson.stderr)")
        let written = try ndjson.lines.flatMap { line -> [[String: Any]] in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (object?["changes"] as? [[String: Any]]) ?? []
        }
        #expect(written.count == expected.count)
        for (a, b) in zip(written, expected) { #expect(NSDictionary(dictionary: a).isEqual(to: b), "\(a) vs \(b)") }

        let csv = try CLI.run(["export", store, "--model", model, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = CSVRows.parse(csv.stdout).dropFirst().filter { !$0[7].isEmpty }
        #expect(rows.count == expected.count)
        for (row, change) in zip(rows, expected) {
            #expect(row.count == 14, "\(row)")
            guard row.count == 14 else { continue }
            let names = (change["updatedProperties"] as? [String])?.joined(separator: " ") ?? ""
            #expect(
                [row[7], row[8], row[9], row[10], row[11], row[12]]
                    == [
                        "\(change["changeID"] ?? "")", "\(change["changeType"] ?? "")", "\(change["entity"] ?? "")",
                        "\(change["entityPK"] ?? "")", "\(change["changedObjectID"] ?? "")", names,
                    ], "\(row)")
        }
    }
}
