import HistoryKit

/// The App Group store of an app that syncs with SwiftSync (3lvis/SwiftSync): among the app's,
/// its widget's, share extension's and CloudKit's transactions, three pulls saved by SwiftSync's
/// inbound context, author `com.github.3lvis.SwiftSync.inbound`, which its cleaner deletes
/// after each sync. For tests; no committed scenario.
public enum SwiftSyncFixtures {
    /// `SwiftSync.inboundAuthor`.
    public static let inboundAuthor = "com.github.3lvis.SwiftSync.inbound"
    /// The store's UUID (not the App Group's: it is another store).
    public static let storeUUID = "5A3C9E21-7D4B-4F86-B2A1-C8E0D6F4B937"
    /// The pulls' transaction numbers: the first day's, the second's and the newest transaction.
    public static let inboundNumbers: [Int64] = [6, 19, 37]

    static let inbound = Scenarios.Actor(
        author: inboundAuthor, context: "SwiftSync.inbound", bundle: "com.example.tasks", process: "Tasks")

    /// The App Group history with the three pulls where their times fall (minutes 20, 1505 and 2950).
    public static func history() -> [FixtureStore.Transaction] {
        typealias C = FixtureStore.Change
        let pulls = [
            Scenarios.tx(
                inbound, 20,
                [
                    C(
                        entity: """
                            Project
                            """, primaryKey: 3, type: .insert), C(entity: "Person", primaryKey: 3, type: .insert),
                ]),
            Scenarios.tx(inbound, 1505, [C(entity: "Project", primaryKey: 3, type: .update, updated: ["name"])]),
            Scenarios.tx(
                inbound, 2950, [C(entity: "Person", primaryKey: 3, type: .update, updated: ["email", "projects"])]),
        ]
        var all = Scenarios.appGroupHistory()
        for pull in pulls {
            let at = all.firstIndex { $0.timestamp > pull.timestamp } ?? all.endIndex
            all.insert(pull, at: at)
        }
        return all
    }

    /// The store, every transaction in the main file.
    public static func store() -> FixtureStore {
        FixtureStore(
            model: Scenarios.tasksModel, storeUUID: storeUUID, tombstoneColumnCount: 4, journalMode: .wal(keepInWAL: 0),
            transactions: history())
    }
}
