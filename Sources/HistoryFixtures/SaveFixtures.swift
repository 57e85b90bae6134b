import HistoryKit

/// Saves of known truth in a store's `-wal`: the App Group history and the objects' rows in the
/// main file, then six saves, each its own commit: updates with known old and new values, a
/// delete, an insert, a purge of transactions 1–10 (no history transaction of its own), and an
/// update after it. Three sets of files: the log as the app left it, the same saves with a
/// checkpoint after the fourth (a reader holding the log, so that the last two follow in it and
/// the states before the checkpoint are only partly rebuilt), and the log restarted by a seventh
/// save after a checkpoint of all six (whose frames remain beyond it, an earlier generation).
public enum SaveFixtures {
    typealias R = FixtureStore.Row
    typealias C = FixtureStore.Change

    /// The six saves, in order. In the store they follow transaction 34 (the App Group history):
    /// saves 1–4 add #35–#38, save 5 purges #1–#10, save 6 adds #39.
    public static let saves: [FixtureStore.Save] = [
        FixtureStore.Save(
            transaction: Scenarios.tx(
                Scenarios.app, 5000, [C(entity: "Task", primaryKey: 1, type: .update, updated: ["title"])]),
            updated: [R(entity: "Task", primaryKey: 1, values: ["title": .text("Plan the autumn launch")])]),
        FixtureStore.Save(
            transaction: Scenarios.tx(
                Scenarios.widget, 5010, [C(entity: "Task", primaryKey: 2, type: .update, updated: ["done"])]),
            updated: [R(entity: "Task", primaryKey: 2, values: ["done": .integer(1)])]),
        FixtureStore.Save(
            transaction: Scenarios.tx(
                Scenarios.app, 5020,
                [
                    C(
                        entity: "Task", primaryKey: 5, type: .delete,
                        tombstone: ["title": .text("Task 5"), "uuid": .blob(Scenarios.uuidBytes(5))])
                ]),
            deleted: [R(entity: "Task", primaryKey: 5)]),
        FixtureStore.Save(
            transaction: Scenarios.tx(Scenarios.share, 5030, [C(entity: "Task", primaryKey: 27, type: .insert)]),
            inserted: [
                R(
                    entity: "Task", primaryKey: 27,
                    values: [
                        "title": .text("Buy stamps"), "done": .integer(0), "priority": .integer(2),
                        "uuid": .blob(Scenarios.uuidBytes(27)), "project": .integer(1),
                    ])
            ]),
        FixtureStore.Save(purge: 1...10),
        FixtureStore.Save(
            transaction: Scenarios.tx(
                Scenarios.app, 5040, [C(entity: "Task", primaryKey: 3, type: .update, updated: ["title", "priority"])]),
            updated: [
                R(
                    entity: "Task", primaryKey: 3,
                    values: ["title": .text("Book the town hall"), "priority": .integer(1)])
            ]),
    ]

    /// The save after a checkpoint of the six, which restarts the log.
    public static let restart = FixtureStore.Save(
        transaction: Scenarios.tx(
            Scenarios.widget, 5050, [C(entity: "Task", primaryKey: 6, type: .update, updated: ["done"])]),
        updated: [R(entity: "Task", primaryKey: 6, values: ["done": .integer(0)])])

    static let storeUUID = "5A0E3F27-91C4-4D6B-8E2A-7C1F0B9D4E36"

    static func store(_ steps: [FixtureStore.SaveStep]) -> FixtureStore {
        var store = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: storeUUID, tombstoneColumnCount: 4, journalMode: .wal(keepInWAL: 0),
            transactions: Scenarios.appGroupHistory(), rows: LaterFixtures.rows())
        store.saveSteps = steps
        return store
    }

    static let scenarios: [Scenarios.Scenario] = [
        Scenarios.Scenario(
            name: "WALSaves", storeFile: "Tasks.sqlite",
            summary:
                """
                Saves of known truth still in the `-wal`: after the App Group history and its objects' rows, six \
                commits: Task p1's title and p2's done changed, p5 deleted, p27 inserted, a purge of transactions \
                1–10, Task p3's title and priority changed (#35–#39; the purge records none).
                """,
            store: store(saves.map { .save($0) }), writesXcdatamodel: false),
        Scenarios.Scenario(
            name: "WALCheckpointed", storeFile: "Tasks.sqlite",
            summary:
                """
                The same six saves with a checkpoint after the fourth while a reader held the log: the main file \
                holds the pages as save 4 left them, the last two saves follow in the log, and the states before \
                save 4 can only partly be rebuilt.
                """,
            store: store(
                saves.prefix(4).map { .save($0) } + [.checkpointHoldingAReader] + saves.suffix(2).map { .save($0) }),
            writesXcdatamodel: false),
        Scenarios.Scenario(
            name: "WALReset", storeFile: "Tasks.sqlite",
            summary:
                """
                The six saves checkpointed, then a seventh (Task p6 marked not done, #40) that restarted the log: \
                one save in the `-wal`, the frames of the six beyond it as an earlier generation.
                """,
            store: store(saves.map { .save($0) } + [.checkpoint, .save(restart)]), writesXcdatamodel: false),
    ]
}
