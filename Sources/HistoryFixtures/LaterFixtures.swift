import HistoryKit

/// The App Group store a day later, for `diff` and `object`: a cleaner purged
/// its first five transactions, the app, its widget and share extension
/// committed four more, and its entity tables hold the objects' current rows.
public enum LaterFixtures {
    /// Transactions purged from the App Group history.
    public static let purged: ClosedRange<Int64> = 1...5

    /// The four transactions after the App Group's 34.
    public static func addedTransactions() -> [FixtureStore.Transaction] {
        typealias C = FixtureStore.Change
        return [
            Scenarios.tx(
                Scenarios.app, 4320,
                [
                    C(entity: "Task", primaryKey: 26, type: .insert),
                    C(entity: "Project", primaryKey: 1, type: .update, updated: ["tasks"]),
                ]),
            Scenarios.tx(Scenarios.widget, 4330, [C(entity: "Task", primaryKey: 26, type: .update, updated: ["done"])]),
            Scenarios.tx(
                Scenarios.app, 4340,
                [
                    C(
                        entity: "Task", primaryKey: 12, type: .delete,
                        tombstone: ["title": .text("Call the bank"), "uuid": .blob(Scenarios.uuidBytes(12))])
                ]),
            Scenarios.tx(
                Scenarios.share, 4350,
                [
                    C(entity: "Task", primaryKey: 3, type: .update, updated: ["title"]),
                    C(entity: "Tag", primaryKey: 3, type: .insert),
                    C(entity: "Tag", primaryKey: 3, type: .update, updated: ["tasks"]),
                ]),
        ]
    }

    /// The rows of the objects alive after the added transactions.
    public static func rows() -> [FixtureStore.Row] {
        typealias R = FixtureStore.Row
        let titles: [Int64: String] = [
            1: "Plan the launch", 2: "Write the invitations", 3: "Book the hall", 26: "Water the plants",
        ]
        var rows: [R] = [
            R(
                entity: "Project", primaryKey: 1,
                values: [
                    "name": .text("Launch"), "createdAt": .real(Scenarios.baseTime + 60),
                    "uuid": .blob(Scenarios.uuidBytes(201)),
                ], links: ["members": [1]], version: 6),
            R(
                entity: "Person", primaryKey: 1,
                values: ["name": .text("Alex Kim"), "email": .text("alex@example.com")], version: 2),
            R(entity: "Tag", primaryKey: 1, values: ["name": .text("home")], links: ["tasks": [1, 5, 26]], version: 3),
            R(entity: "Tag", primaryKey: 3, values: ["name": .text("garden")], links: ["tasks": [26]], version: 2),
            R(
                entity: "Photo", primaryKey: 1,
                values: [
                    "filename": .text("venue.jpg"), "width": .real(4032), "height": .real(3024),
                    "uuid": .blob(Scenarios.uuidBytes(301)), "task": .integer(4),
                ], version: 3),
            R(
                entity: "Photo", primaryKey: 3,
                values: [
                    "filename": .text("flyer.png"), "width": .real(1080), "height": .real(1920),
                    "task": .integer(13),
                ], version: 2),
            R(
                entity: "Document", primaryKey: 2,
                values: [
                    "filename": .text("budget.pdf"), "pageCount": .integer(12),
                    "uuid": .blob(Scenarios.uuidBytes(102)), "task": .integer(8),
                ], version: 3),
        ]
        for key in Int64(1)...26 where key != 7 && key != 12 {
            var values: [String: StoredValue] = [
                "title": .text(titles[key] ?? "Task \(key)"), "done": .integer(key % 3 == 0 || key == 26 ? 1 : 0),
                "priority": .integer(key % 4), "uuid": .blob(Scenarios.uuidBytes(Int(key))),
            ]
            if key <= 6 || key == 26 { values["project"] = .integer(1) }
            if key == 4 { values["attachment"] = .integer(1) }
            if key == 13 { values["attachment"] = .integer(3) }
            if key == 8 { values["attachment"] = .integer(2) }
            if key <= 6 { values["due"] = .real(Scenarios.baseTime + 86_400 * Double(key)) }
            rows.append(R(entity: "Task", primaryKey: key, values: values, version: key == 26 ? 2 : key <= 6 ? 4 : 1))
        }
        return rows
    }
}
