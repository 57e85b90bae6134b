import Foundation
import GRDB
import HistoryKit

/// Stores at the limits of what cdhist must read: 100 tombstone
/// columns, a model of 1,000 entities, a 10 MB author, one transaction of a
/// million changes, and timestamps at and past the ends of time. Each is a
/// real SQLite store with Core Data's layout, written by ``StoreWriter``.
public enum LimitStores {
    /// The store files `write(into:)` writes.
    public static let wideTombstonesFile = "WideTombstones.sqlite"
    public static let manyEntitiesFile = "ManyEntities.sqlite"
    public static let longAuthorFile = "LongAuthor.sqlite"
    public static let largeTransactionFile = "LargeTransaction.sqlite"
    public static let edgeTimestampsFile = "EdgeTimestamps.sqlite"
    public static let manyDeletionsFile = "ManyDeletions.sqlite"

    /// Writes every limit store into `directory` (created if needed);
    /// `largeTransactionChanges` sets the size of the large transaction.
    public static func write(into directory: String, largeTransactionChanges: Int = 1_000_000) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let url = URL(fileURLWithPath: directory)
        try writeWideTombstones(to: url.appendingPathComponent(wideTombstonesFile).path)
        try writeManyEntities(to: url.appendingPathComponent(manyEntitiesFile).path)
        try writeLongAuthor(to: url.appendingPathComponent(longAuthorFile).path)
        try writeLargeTransaction(
            to: url.appendingPathComponent(largeTransactionFile).path, changes: largeTransactionChanges)
        try writeEdgeTimestamps(to: url.appendingPathComponent(edgeTimestampsFile).path)
        try writeManyDeletions(to: url.appendingPathComponent(manyDeletionsFile).path)
    }

    private static func attribute(_ name: String, _ type: AttributeType, preserve: Bool = false) -> PropertyDescription
    {
        PropertyDescription(
            name: name,
            kind: .attribute(AttributeInfo(type: type, flags: preserve ? AttributeInfo.preserveAfterDeletionFlag : 0)))
    }

    // MARK: 100 tombstone columns

    /// Preserved attributes of entity `Wide`, and tombstone columns of its store.
    public static let tombstoneCount = 100

    /// `a000` … `a099`, in slot (and tombstone) order.
    public static func wideAttributeName(_ i: Int) -> String { "a" + String(1000 + i).dropFirst() }

    /// Entity `Wide`: 100 preserved attributes of four types in turn (string,
    /// 64-bit integer, double, binary) and one that is not preserved.
    public static let wideModel = ManagedObjectModel(
        entities: [
            EntityDescription(
                name: "Wide",
                properties: (0..<tombstoneCount).map { i in
                    attribute(
                        wideAttributeName(i), [AttributeType.string, .integer64, .double, .binaryData][i % 4],
                        preserve: true)
                } + [attribute("note", .string)])
        ], versionIdentifiers: ["Wide 1"])

    /// What the delete of `Wide` object `pk` preserves for attribute `i`.
    public static func wideValue(_ i: Int, pk: Int64) -> StoredValue {
        switch i % 4 {
        case 0: return .text("v\(i)-\(pk)")
        case 1: return .integer(Int64(i) * 1000 + pk)
        case 2: return .real(Double(i) + 0.25)
        default: return .blob([UInt8(i), UInt8(truncatingIfNeeded: pk)])
        }
    }

    /// Three `Wide` objects inserted, one updated, then all three deleted
    /// with every one of the 100 tombstones filled.
    public static func writeWideTombstones(to path: String) throws {
        typealias C = FixtureStore.Change
        let deleted = (1...3).map { pk in
            C(
                entity: "Wide", primaryKey: Int64(pk), type: .delete,
                tombstone: Dictionary(
                    uniqueKeysWithValues: (0..<tombstoneCount).map {
                        (wideAttributeName($0), wideValue($0, pk: Int64(pk)))
                    }))
        }
        let transactions = [
            FixtureStore.Transaction(
                timestamp: Scenarios.baseTime, author: "app",
                changes: (1...3).map { C(entity: "Wide", primaryKey: $0, type: .insert) }),
            FixtureStore.Transaction(
                timestamp: Scenarios.baseTime + 60, author: "app",
                changes: [C(entity: "Wide", primaryKey: 2, type: .update, updated: ["a099", "note"])]),
            FixtureStore.Transaction(timestamp: Scenarios.baseTime + 120, author: "app", changes: deleted),
        ]
        try StoreWriter.write(
            FixtureStore(
                model: wideModel, storeUUID: "A1D3E000-0000-4000-8000-000000000100",
                tombstoneColumnCount: tombstoneCount, transactions: transactions), to: path)
    }

    // MARK: 1,000 entities

    public static let entityCount = 1000

    /// `Entity0000` … `Entity0999`.
    public static func entityName(_ i: Int) -> String { "Entity" + String(10000 + i).dropFirst() }

    /// 1,000 entities; every tenth (`Entity0009`, `Entity0019`, …) is a
    /// subentity of the first of its ten, so Core Data's numbering (roots in
    /// name order, each followed by its subentities) differs from name order.
    public static let manyEntitiesModel = manyEntitiesModel(count: entityCount)

    /// `count` entities (a multiple of 100) named and related as ``manyEntitiesModel``'s.
    public static func manyEntitiesModel(count: Int) -> ManagedObjectModel {
        ManagedObjectModel(
            entities: (0..<count).map { i in
                i % 10 == 9
                    ? EntityDescription(
                        name: entityName(i), superentityName: entityName(i - 9),
                        properties: [attribute("extra", .integer32)])
                    : EntityDescription(
                        name: entityName(i),
                        properties: [attribute("key", .string, preserve: true), attribute("value", .integer64)])
            }, versionIdentifiers: ["Many 1"])
    }

    /// One transaction per hundred entities: each entity's object 1 inserted, its `value`
    /// updated, and deleted with its `key` preserved (`count` entities, a multiple of 100).
    public static func writeManyEntities(to path: String, count: Int = entityCount) throws {
        var transactions: [FixtureStore.Transaction] = []
        for t in 0..<count / 100 {
            var changes: [FixtureStore.Change] = []
            for i in t * 100..<(t + 1) * 100 {
                let name = entityName(i)
                let key: StoredValue = .text("\(name)-1")
                changes.append(FixtureStore.Change(entity: name, primaryKey: 1, type: .insert))
                changes.append(FixtureStore.Change(entity: name, primaryKey: 1, type: .update, updated: ["value"]))
                changes.append(FixtureStore.Change(entity: name, primaryKey: 1, type: .delete, tombstone: ["key": key]))
            }
            transactions.append(
                FixtureStore.Transaction(
                    timestamp: Scenarios.baseTime + Double(t) * 60, author: "importer", changes: changes))
        }
        try StoreWriter.write(
            FixtureStore(
                model: count == entityCount ? manyEntitiesModel : manyEntitiesModel(count: count),
                storeUUID: "A1D3E000-0000-4000-8000-000000001000",
                tombstoneColumnCount: 1, transactions: transactions), to: path)
    }

    // MARK: a 10 MB author

    public static let longAuthorLength = 10 << 20

    /// `author:0123456789…` up to 10 MiB, ending in `#END` (so a cut is seen).
    public static let longAuthor: String = {
        var s = "author:"
        let digits = "0123456789"
        s.reserveCapacity(longAuthorLength)
        while s.utf8.count < longAuthorLength - 4 - digits.count { s += digits }
        s += String(digits.prefix(longAuthorLength - 4 - s.utf8.count))
        return s + "#END"
    }()

    /// Transactions 1 and 3 by the 10 MB author, 2 by `app`.
    public static func writeLongAuthor(to path: String) throws {
        let change = [FixtureStore.Change(entity: "Tag", primaryKey: 1, type: .insert)]
        let transactions = [longAuthor, "app", longAuthor].enumerated().map { i, author in
            FixtureStore.Transaction(
                timestamp: Scenarios.baseTime + Double(i) * 60, author: author, contextName: "viewContext",
                changes: change)
        }
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: "A1D3E000-0000-4000-8000-00000000000A",
                transactions: transactions), to: path)
    }

    // MARK: one transaction of a million changes

    /// Transaction 1 (one insert) by `app`, then transaction 2 by `importer`
    /// with `changes` changes of `Task` objects 1…n: insert, update of `done`
    /// (ZCOLUMNS) and delete with the title preserved, in turn (`n % 3`). The
    /// changes are written by one prepared statement in one SQLite transaction.
    public static func writeLargeTransaction(to path: String, changes: Int) throws {
        let fixture = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: "A1D3E000-0000-4000-8000-000000100000",
            transactions: [
                FixtureStore.Transaction(
                    timestamp: Scenarios.baseTime, author: "app",
                    changes: [.init(entity: "Task", primaryKey: 1, type: .insert)]),
                FixtureStore.Transaction(timestamp: Scenarios.baseTime + 60, author: "importer", changes: []),
            ])
        try StoreWriter.write(fixture, to: path)
        guard let task = fixture.entityNumbers.first(where: { $0.name == "Task" })?.number,
            let layout = SlotLayout(entity: "Task", model: fixture.model),
            let done = layout.slots.first(where: { $0.propertyName == "done" }),
            layout.tombstoneAttributes.first == "title"
        else {
            throw CocoaError(
                .featureUnsupported,
                userInfo: [NSLocalizedDescriptionKey: "the Tasks model lost Task.done or its title tombstone"])
        }
        var columns = [UInt8](repeating: 0, count: layout.byteLength)
        columns[done.index >> 3] |= 0x80 >> UInt8(done.index & 7)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, \
                    ZTOMBSTONE0)
                    SELECT 16001, NULL, i % 3, ?, i, 2, CASE i % 3 WHEN 1 THEN ? END, CASE i % 3 WHEN 2 THEN 'Task ' \
                    || i END FROM n
                    """, arguments: [changes, task, Data(columns)])
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ACHANGE) WHERE Z_NAME = 'CHANGE'")
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_NAME = 'Task'", arguments: [changes])
        }
        try queue.close()
    }

    // MARK: timestamps at and past the ends of time

    /// Cocoa timestamps of transactions 1, 2, … of the edge-timestamp store.
    public static let edgeTimestamps: [(label: String, cocoa: Double)] = [
        ("the reference date 2001-01-01", 0),
        ("one second before it", -1),
        ("the Unix epoch", -978_307_200),
        ("the first dated millisecond, 0001-01-01", -63_113_904_000),
        ("before the year 1", -1e11),
        ("the last dated millisecond, 9999-12-31", 252_423_993_599.999),
        ("far future (1e12 s)", 1e12),
        ("NaN (SQLite stores NULL)", .nan),
        ("+infinity", .infinity),
        ("-infinity", -.infinity),
        ("a negative number past any date (-1e300)", -1e300),
        ("an ordinary day, 2025-03-03", Scenarios.baseTime),
    ]

    /// One transaction per ``edgeTimestamps`` entry (author `t1`, `t2`, …), each inserting a Tag.
    public static func writeEdgeTimestamps(to path: String) throws {
        let transactions = edgeTimestamps.enumerated().map { i, edge in
            FixtureStore.Transaction(
                timestamp: edge.cocoa, author: "t\(i + 1)",
                changes: [.init(entity: "Tag", primaryKey: Int64(i + 1), type: .insert)])
        }
        try StoreWriter.write(
            FixtureStore(
                model: Scenarios.tasksModel, storeUUID: "A1D3E000-0000-4000-8000-0000000000E0",
                transactions: transactions), to: path)
    }

    // MARK: thousands of deletions, long entity names

    /// Entities with long names: the first keeps a title in its tombstone, the second keeps
    /// nothing, the third keeps a name and is also gone without recorded deletes.
    public static let titledEntity = "UsageTimedItemCategorySummary"
    public static let untitledEntity = "ApplicationUsageHistoryRecordEntry"
    public static let unrecordedEntity = "DeviceActivityScheduleSnapshot"

    /// Objects of each entity ``writeManyDeletions(to:)`` deletes.
    public static let titledDeletions = 3000, untitledDeletions = 4200, unrecordedDeletions = 300
    /// Objects of ``unrecordedEntity`` gone without a recorded delete (their delete purged).
    public static let goneWithoutDelete = 40

    /// The title ``titledEntity``'s object `pk` keeps when deleted: words with spaces, long
    /// enough to need more than one line in a narrow column.
    public static func deletedTitle(_ pk: Int64) -> String {
        "Weekly screen time summary for the family, category number \(pk)"
    }

    static let manyDeletionsModel = ManagedObjectModel(
        entities: [
            EntityDescription(
                name: titledEntity,
                properties: [attribute("title", .string, preserve: true), attribute("seconds", .integer64)]),
            EntityDescription(
                name: untitledEntity, properties: [attribute("bundle", .string), attribute("seconds", .integer64)]),
            EntityDescription(name: unrecordedEntity, properties: [attribute("name", .string, preserve: true)]),
        ], versionIdentifiers: ["Deletions 1"])

    /// Every object inserted by `app`, then deleted in batches of 100 by `cleaner`, an hour
    /// apart; the deletes of ``goneWithoutDelete`` objects of ``unrecordedEntity`` are not
    /// recorded (as after a purge of the cleaner's transactions), and their rows are gone.
    public static func writeManyDeletions(to path: String) throws {
        typealias C = FixtureStore.Change
        let counts = [
            (titledEntity, titledDeletions), (untitledEntity, untitledDeletions),
            (unrecordedEntity, unrecordedDeletions + goneWithoutDelete),
        ]
        var transactions: [FixtureStore.Transaction] = []
        for (entity, count) in counts {
            transactions.append(
                FixtureStore.Transaction(
                    timestamp: Scenarios.baseTime + Double(transactions.count) * 60, author: "app",
                    changes: (1...Int64(count)).map { C(entity: entity, primaryKey: $0, type: .insert) }))
        }
        var deletes: [C] = []
        for (entity, count) in counts {
            for pk in 1...Int64(entity == unrecordedEntity ? unrecordedDeletions : count) {
                let tombstone: [String: StoredValue] =
                    switch entity {
                    case titledEntity: ["title": .text(deletedTitle(pk))]
                    case unrecordedEntity: ["name": .text("schedule \(pk)")]
                    default: [:]
                    }
                deletes.append(C(entity: entity, primaryKey: pk, type: .delete, tombstone: tombstone))
            }
        }
        for batch in stride(from: 0, to: deletes.count, by: 100) {
            transactions.append(
                FixtureStore.Transaction(
                    timestamp: Scenarios.baseTime + 3600 * Double(transactions.count), author: "cleaner",
                    contextName: "BackgroundCleanup", changes: Array(deletes[batch..<min(batch + 100, deletes.count)])))
        }
        try StoreWriter.write(
            FixtureStore(
                model: manyDeletionsModel, storeUUID: "A1D3E000-0000-4000-8000-00000000DE1E",
                tombstoneColumnCount: 1, transactions: transactions), to: path)
    }
}
