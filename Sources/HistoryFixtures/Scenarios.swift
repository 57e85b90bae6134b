import HistoryKit

/// The committed fixtures: deterministic stores described in code.
public enum Scenarios {
    /// A task app's model: inheritance (Attachment → Photo, Document), tombstones,
    /// and relationships of every ZCOLUMNS slot group.
    public static let tasksModel: ManagedObjectModel = {
        func attr(_ name: String, _ type: AttributeType, preserve: Bool = false, transient: Bool = false)
            -> PropertyDescription
        {
            PropertyDescription(
                name: name,
                kind: .attribute(
                    AttributeInfo(
                        type: type, flags: preserve ? AttributeInfo.preserveAfterDeletionFlag : 0)),
                isTransient: transient)
        }
        func rel(_ name: String, _ destination: String, inverse: String, toMany: Bool, ordered: Bool = false)
            -> PropertyDescription
        {
            PropertyDescription(
                name: name,
                kind: .relationship(
                    RelationshipInfo(
                        destinationEntityName: destination, inverseName: inverse, maxCount: toMany ? 0 : 1,
                        isOrdered: ordered)))
        }
        return ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Project",
                    properties: [
                        attr("name", .string), attr("createdAt", .date), attr("uuid", .uuid, preserve: true),
                        rel("tasks", "Task", inverse: "project", toMany: true, ordered: true),
                        rel("members", "Person", inverse: "projects", toMany: true),
                    ]),
                EntityDescription(
                    name: "Task",
                    properties: [
                        attr("title", .string, preserve: true), attr("done", .boolean), attr("due", .date),
                        attr("priority", .integer16), attr("uuid", .uuid, preserve: true),
                        attr("isEditing", .boolean, transient: true),
                        rel("project", "Project", inverse: "tasks", toMany: false),
                        rel("attachment", "Attachment", inverse: "task", toMany: false),
                        rel("tags", "Tag", inverse: "tasks", toMany: true),
                    ]),
                EntityDescription(
                    name: "Attachment", isAbstract: true,
                    properties: [
                        attr("filename", .string, preserve: true), attr("uuid", .uuid),
                        rel("task", "Task", inverse: "attachment", toMany: false),
                    ]),
                EntityDescription(
                    name: "Photo", superentityName: "Attachment",
                    properties: [attr("width", .double), attr("height", .double)]),
                EntityDescription(
                    name: "Document", superentityName: "Attachment", properties: [attr("pageCount", .integer32)],
                    userInfo: ["NSPersistentHistoryTombstoneAttributes": "uuid"]),
                EntityDescription(
                    name: "Tag",
                    properties: [
                        attr("name", .string, preserve: true), rel("tasks", "Task", inverse: "tags", toMany: true),
                    ]),
                EntityDescription(
                    name: "Person",
                    properties: [
                        attr("name", .string), attr("email", .string, preserve: true),
                        rel("projects", "Project", inverse: "members", toMany: true),
                    ]),
            ], versionIdentifiers: ["Tasks 1"])
    }()

    /// 2025-03-03 09:00:00 UTC in Cocoa seconds.
    public static let baseTime = 762_685_200.0

    /// One writer of the App Group store.
    struct Actor: Sendable {
        var author: String?
        var context: String
        var bundle: String
        var process: String
    }

    static let app = Actor(author: "app", context: "viewContext", bundle: "com.example.tasks", process: "Tasks")
    static let batch = Actor(author: "app", context: "batchImport", bundle: "com.example.tasks", process: "Tasks")
    static let widget = Actor(
        author: "widget", context: "widgetContext", bundle: "com.example.tasks.widget", process: "TasksWidget")
    static let share = Actor(
        author: "shareExtension", context: "shareContext", bundle: "com.example.tasks.share", process: "TasksShare")
    static let ckImport = Actor(
        author: "NSCloudKitMirroringDelegate.import", context: "NSCloudKitMirroringDelegate.import",
        bundle: "com.example.tasks", process: "Tasks")
    static let ckExport = Actor(
        author: "NSCloudKitMirroringDelegate.export", context: "NSCloudKitMirroringDelegate.export",
        bundle: "com.example.tasks", process: "Tasks")
    static let ckSetup = Actor(
        author: "NSCloudKitMirroringDelegate.setup", context: "NSCloudKitMirroringDelegate.setup",
        bundle: "com.example.tasks", process: "Tasks")
    static let anonymous = Actor(
        author: nil, context: "backgroundContext", bundle: "com.example.tasks", process: "Tasks")

    static func tx(_ actor: Actor, _ minutes: Double, _ changes: [FixtureStore.Change]) -> FixtureStore.Transaction {
        FixtureStore.Transaction(
            timestamp: baseTime + minutes * 60, author: actor.author, contextName: actor.context,
            bundleID: actor.bundle, processID: actor.process, changes: changes)
    }

    /// Deterministic 16 bytes standing for the UUID numbered `n`.
    public static func uuidBytes(_ n: Int) -> [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: n &* 37 &+ $0 &* 11) }
    }

    /// Three days of an app, its widget and share extension, a batch import and CloudKit mirroring.
    public static func appGroupHistory() -> [FixtureStore.Transaction] {
        typealias C = FixtureStore.Change
        var txs: [FixtureStore.Transaction] = [
            tx(ckSetup, 0, []),
            tx(
                app, 1,
                [
                    C(
                        entity: """
                            Project
                            """, primaryKey: 1, type: .insert), C(entity: "Person", primaryKey: 1, type: .insert),
                ]),
            tx(ckExport, 2, [C(entity: "Project", primaryKey: 1, type: .update, updated: ["members"])]),
        ]
        // A batch import of tasks with tags and attachments.
        var imported: [C] = []
        for i in 1...12 {
            imported.append(C(entity: "Task", primaryKey: Int64(i), type: .insert))
            if i % 4 == 0 {
                imported.append(C(entity: i % 8 == 0 ? "Document" : "Photo", primaryKey: Int64(i / 4), type: .insert))
            }
        }
        imported += [C(entity: "Tag", primaryKey: 1, type: .insert), C(entity: "Tag", primaryKey: 2, type: .insert)]
        txs.append(tx(batch, 10, imported))
        txs.append(tx(ckExport, 11, [C(entity: "Task", primaryKey: 1, type: .update, updated: ["project"])]))
        // Day one: edits everywhere, touching every slot group.
        txs += [
            tx(app, 60, [C(entity: "Task", primaryKey: 1, type: .update, updated: ["title", "done"])]),
            tx(widget, 75, [C(entity: "Task", primaryKey: 2, type: .update, updated: ["done"])]),
            tx(
                app, 90,
                [
                    C(entity: "Task", primaryKey: 3, type: .update, updated: ["project"]),  // to-one + ordered inverse
                    C(entity: "Project", primaryKey: 1, type: .update, updated: ["tasks"]),
                ]),  // to-many, inverse to-one
            // to-one to a parent entity
            tx(app, 95, [C(entity: "Task", primaryKey: 4, type: .update, updated: ["attachment"])]),
            tx(
                app, 100,
                [
                    C(entity: "Task", primaryKey: 5, type: .update, updated: ["tags"]),  // many-to-many
                    C(entity: "Tag", primaryKey: 1, type: .update, updated: ["tasks"]),
                ]),
            tx(
                share, 130,
                [
                    C(entity: "Task", primaryKey: 13, type: .insert),
                    C(entity: "Photo", primaryKey: 3, type: .insert),
                    C(entity: "Task", primaryKey: 13, type: .update, updated: ["attachment", "title"]),
                ]),
            tx(
                ckImport, 140,
                [
                    C(entity: "Person", primaryKey: 2, type: .insert),
                    C(entity: "Project", primaryKey: 1, type: .update, updated: ["members", "name"]),
                ]),
            tx(
                anonymous, 150,
                [C(entity: "Photo", primaryKey: 1, type: .update, updated: ["width", "height", "filename"])]),
            tx(app, 160, [C(entity: "Document", primaryKey: 2, type: .update, updated: ["pageCount", "task"])]),
        ]
        // Day two: the widget and the app keep working; deletes leave tombstones.
        for i in 0..<10 {
            let minute = 1440 + Double(i) * 30
            txs.append(
                tx(
                    i % 2 == 0 ? widget : app, minute,
                    [
                        C(
                            entity: "Task", primaryKey: Int64(1 + i % 12), type: .update,
                            updated: i % 3 == 0 ? ["done"] : ["due", "priority"])
                    ]))
        }
        txs += [
            tx(
                app, 1800,
                [
                    C(
                        entity: "Task", primaryKey: 7, type: .delete,
                        tombstone: ["title": .text("Buy milk"), "uuid": .blob(uuidBytes(7))]),
                    C(
                        entity: "Document", primaryKey: 1, type: .delete,
                        tombstone: ["filename": .text("receipt.pdf"), "uuid": .blob(uuidBytes(101))]),
                    C(entity: "Tag", primaryKey: 2, type: .delete, tombstone: ["name": .text("errands")]),
                ]),
            tx(ckExport, 1801, [C(entity: "Task", primaryKey: 8, type: .update, updated: ["title"])]),
            tx(share, 1900, [C(entity: "Task", primaryKey: 14, type: .insert)]),
            tx(
                ckImport, 1950,
                [C(entity: "Person", primaryKey: 2, type: .delete, tombstone: ["email": .text("sam@example.com")])]),
        ]
        // Day three: a second batch import and the newest edits.
        txs.append(tx(batch, 2880, (15...24).map { C(entity: "Task", primaryKey: Int64($0), type: .insert) }))
        txs += [
            tx(
                app, 2900,
                [
                    C(entity: "Project", primaryKey: 2, type: .insert),
                    C(entity: "Task", primaryKey: 15, type: .update, updated: ["project"]),
                ]),
            tx(widget, 2910, [C(entity: "Task", primaryKey: 16, type: .update, updated: ["done"])]),
            tx(
                app, 2920,
                [C(entity: "Project", primaryKey: 2, type: .delete, tombstone: ["uuid": .blob(uuidBytes(202))])]),
            tx(ckExport, 2921, [C(entity: "Task", primaryKey: 15, type: .update, updated: ["project", "title"])]),
            tx(share, 2930, [C(entity: "Task", primaryKey: 25, type: .insert)]),
        ]
        return txs
    }

    public static let appGroupUUID = "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87"
    public static let purgedUUID = "0B7C4E12-95D3-4F6A-8E21-7C9D5A3B1F04"

    /// The timestamp of App Group transaction `n` (1-based).
    public static func appGroupTime(_ n: Int) -> Double { appGroupHistory()[n - 1].timestamp }

    /// A scenario: a folder under `fixtures/` and what it holds.
    public struct Scenario: Sendable {
        public var name: String
        /// The store's path inside the scenario folder.
        public var storeFile: String
        public var summary: String
        public var store: FixtureStore
        /// Write the model as `Tasks.xcdatamodel/contents` beside the store.
        public var writesXcdatamodel: Bool
        /// Other files (plists, tokens) by path inside the scenario folder.
        public var extraFiles: [String: [UInt8]] = [:]
        /// CloudKit mirroring's tables to add to the store.
        public var mirroring: MirroringFixture? = nil
    }

    public static let all: [Scenario] =
        [
            Scenario(
                name: "AppGroup", storeFile: "Tasks.sqlite",
                summary:
                    """
                    An App Group store shared by an app (`app`, with a `batchImport` context), its widget \
                    (`widget`), a share extension (`shareExtension`) and CloudKit mirroring \
                    (`NSCloudKitMirroringDelegate.import/.export/.setup`), plus transactions without an author. \
                    The model has inheritance (Attachment → Photo, Document), tombstones (flagged attributes and \
                    a legacy userInfo list), and updates touching every ZCOLUMNS slot group.
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: appGroupUUID, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0), transactions: appGroupHistory()),
                writesXcdatamodel: false),
            Scenario(
                name: "MergeState", storeFile: "Tasks.sqlite",
                summary:
                    """
                    The App Group history with merge state in every key format (plists) and token files: \
                    up-to-date, behind, stale, never-merged, foreign, corrupt and mismatched actors.
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: appGroupUUID, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0), transactions: appGroupHistory()),
                writesXcdatamodel: false, extraFiles: MergeStateFixtures.files()),
            Scenario(
                name: "GroupContainer",
                storeFile: MergeStateFixtures.containerUUID + "/Library/Application Support/Tasks.sqlite",
                summary:
                    """
                    An iOS App Group container as copied off a device: `<UUID>/` with its metadata plist naming \
                    `group.com.example.tasks`, the store under `Library/Application Support`, the shared defaults \
                    under `Library/Preferences` and Apple's `token.data`.
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: appGroupUUID, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0), transactions: appGroupHistory()),
                writesXcdatamodel: false, extraFiles: MergeStateFixtures.containerFiles()),
            Scenario(
                name: "Purged", storeFile: "Tasks.sqlite",
                summary:
                    """
                    The App Group history after a purge of transactions 1–20: the first transaction is 21, \
                    `Z_MAX` still counts the deleted ones. `defaults.plist` has a date actor (`app`) that fell \
                    behind the purge and `widget-token.data` a token (transaction 15) that expired with it.
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: purgedUUID, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0), transactions: appGroupHistory(), purgedTransactions: 1...20),
                writesXcdatamodel: false, extraFiles: MergeStateFixtures.purgedFiles()),
            Scenario(
                name: "CloudKit", storeFile: "Tasks.sqlite",
                summary:
                    """
                    The App Group history in a store mirrored with CloudKit: the mirroring tables with their \
                    exact DDL, the exporter's token at #28 (behind: 5 transactions of the app's authors to \
                    export, 1 of CloudKit's own), 20 mirrored records (2 awaiting upload, 1 a deletion in iCloud, \
                    1 export in flight), a zone, six events (one failed export). `swiftdata-token.json` and \
                    `swiftdata.plist` hold SwiftData-style JSON tokens.
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: appGroupUUID, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0), transactions: appGroupHistory()),
                writesXcdatamodel: false, extraFiles: CloudKitFixtures.files(),
                mirroring: CloudKitFixtures.mirroring()),
            Scenario(
                name: "Later", storeFile: "Tasks.sqlite",
                summary:
                    """
                    The App Group store a day later, for `diff` and `object`: a cleaner purged transactions 1–5, \
                    the app, its widget and share extension committed four more (#35–#38: a task inserted and \
                    marked done, one deleted, one renamed, a tag), and its entity tables hold the objects' \
                    current rows (many-to-many relationships in join tables).
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: appGroupUUID, tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 0),
                    transactions: appGroupHistory() + LaterFixtures.addedTransactions(),
                    purgedTransactions: LaterFixtures.purged, rows: LaterFixtures.rows()),
                writesXcdatamodel: false),
            Scenario(
                name: "NoModelCache", storeFile: "Tasks.sqlite",
                summary:
                    """
                    A store without `Z_MODELCACHE` content; its model is beside it as `Tasks.xcdatamodel` (pass \
                    it with `--model`).
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: "C3A9E5F1-2D47-4B86-A0E3-5F7B9C1D2E68", tombstoneColumnCount: 4,
                    writesModelCache: false, journalMode: .wal(keepInWAL: 0), transactions: appGroupHistory()),
                writesXcdatamodel: true),
            Scenario(
                name: "WALPending", storeFile: "Tasks.sqlite",
                summary:
                    """
                    A store copied while the app ran: the newest 8 transactions exist only in `Tasks.sqlite-wal` \
                    (reading the main file alone shows fewer).
                    """,
                store: FixtureStore(
                    model: tasksModel, storeUUID: "9E4B7D21-C6A8-4F35-B1D9-2E8C5A7F3B60", tombstoneColumnCount: 4,
                    journalMode: .wal(keepInWAL: 8), transactions: appGroupHistory()),
                writesXcdatamodel: false),
        ] + SaveFixtures.scenarios + [HazardFixtures.scenario]

    /// One entity's share of generated benchmark history: the property sets its
    /// updates touch and the values its deletes preserve.
    private struct BenchmarkEntity {
        var name: String
        var updates: [[String]]
        var tombstone: (Int64) -> [String: StoredValue]
    }

    private static let benchmarkEntities: [BenchmarkEntity] = [
        BenchmarkEntity(
            name: "Task",
            updates: [
                ["done"], ["title", "project"], ["due", "priority"], ["tags"], ["attachment", "done", "title"],
            ],
            tombstone: { ["title": .text("Task \($0)"), "uuid": .blob(uuidBytes(Int($0)))] }),
        BenchmarkEntity(
            name: "Project", updates: [["name"], ["tasks"], ["members", "name"]],
            tombstone: { ["uuid": .blob(uuidBytes(Int($0)))] }),
        BenchmarkEntity(
            name: "Photo", updates: [["width", "height"], ["filename"], ["task"]],
            tombstone: { ["filename": .text("IMG_\($0).heic")] }),
        BenchmarkEntity(
            name: "Document", updates: [["pageCount"], ["filename", "pageCount"]],
            tombstone: { ["uuid": .blob(uuidBytes(Int($0)))] }),
        BenchmarkEntity(
            name: "Tag", updates: [["name"], ["tasks"]],
            tombstone: { ["name": .text("tag-\($0 % 97)")] }),
        BenchmarkEntity(
            name: "Person", updates: [["email"], ["projects", "name"]],
            tombstone: { ["email": .text("person\($0)@example.com")] }),
    ]

    /// A generated transaction for benchmark stores: a rotation of the App
    /// Group's actors over every entity; each transaction starts with an insert,
    /// most changes are updates with ZCOLUMNS, and some are deletes with tombstones.
    public static func benchmarkTransaction(_ i: Int, changesPerTransaction: Int) -> FixtureStore.Transaction {
        let actors = [app, widget, app, share, batch, ckImport, ckExport, anonymous]
        let actor = actors[i % actors.count]
        var changes: [FixtureStore.Change] = []
        changes.reserveCapacity(changesPerTransaction)
        for j in 0..<changesPerTransaction {
            let pk = Int64(i * changesPerTransaction + j + 1)
            let entity = benchmarkEntities[(i * 7 + j * 3) % benchmarkEntities.count]
            switch j % 5 {
            case 0: changes.append(.init(entity: entity.name, primaryKey: pk, type: .insert))
            case 4 where (i + j) % 3 == 0:
                changes.append(
                    .init(entity: entity.name, primaryKey: pk, type: .delete, tombstone: entity.tombstone(pk)))
            default:
                changes.append(
                    .init(
                        entity: entity.name, primaryKey: pk, type: .update,
                        updated: entity.updates[(i + j) % entity.updates.count]))
            }
        }
        return FixtureStore.Transaction(
            timestamp: baseTime + Double(i) * 30, author: actor.author, contextName: actor.context,
            bundleID: actor.bundle, processID: actor.process, changes: changes)
    }

    /// A defaults plist for a benchmark store of `count` transactions: `app`
    /// merged everything, `widget` 90 % and `shareExtension` half of it.
    public static func benchmarkDefaults(transactions count: Int) -> [UInt8] {
        func date(_ fraction: Double) -> PlistValue {
            .date(baseTime + Double(max(0, Int(Double(count) * fraction) - 1)) * 30)
        }
        return PropertyList.encodeBinary(
            .dictionary([
                "PersistentHistoryTrackingKit.lastToken.app": date(1),
                "PersistentHistoryTrackingKit.lastToken.widget": date(0.9),
                "PersistentHistoryTrackingKit.lastToken.shareExtension": date(0.5),
            ]))
    }
}
