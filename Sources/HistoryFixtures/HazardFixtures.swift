import HistoryKit

/// A clipboard app's store showing what real apps report beyond merging and purging: a cleanup
/// that deleted two thirds of the items at once, items deleted without their contents (the
/// cascade skipped) and contents saved without an item, CloudKit mirroring run by the app and
/// by its widget, then twelve days of the app writing with mirroring off; its model indexes an
/// attribute in Spotlight, and beside it the app keeps SwiftData tokens per store.
public enum HazardFixtures {
    public static let storeUUID = "5A0E3C71-8D24-4B9F-A6E2-1C7F9B3D5E80"
    /// The other store of the app, named in the token dictionary.
    public static let otherStoreUUID = "E2B84F06-3C19-4D7A-9B51-6A0D2F8C4E17"

    /// Items with their contents (Cascade); an item's title is indexed by Spotlight.
    public static let model: ManagedObjectModel = {
        func attr(_ name: String, _ type: AttributeType, spotlight: Bool = false) -> PropertyDescription {
            PropertyDescription(
                name: name, kind: .attribute(AttributeInfo(type: type)), isIndexedBySpotlight: spotlight)
        }
        return ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Item",
                    properties: [
                        attr("title", .string, spotlight: true), attr("application", .string), attr("copiedAt", .date),
                        PropertyDescription(
                            name: "contents",
                            kind: .relationship(
                                RelationshipInfo(
                                    destinationEntityName: "Content", inverseName: "item", maxCount: 0,
                                    deleteRule: .cascade))),
                    ]),
                EntityDescription(
                    name: "Content",
                    properties: [
                        attr("type", .string), attr("value", .binaryData),
                        PropertyDescription(
                            name: "item",
                            kind: .relationship(
                                RelationshipInfo(
                                    destinationEntityName: "Item", inverseName: "contents", maxCount: 1))),
                    ]),
            ], versionIdentifiers: ["Clipboard 1"])
    }()

    private static func tx(
        _ author: String, _ context: String, widget: Bool = false, _ minutes: Double,
        _ changes: [FixtureStore.Change]
    ) -> FixtureStore.Transaction {
        FixtureStore.Transaction(
            timestamp: Scenarios.baseTime + minutes * 60, author: author, contextName: context,
            bundleID: widget ? "com.example.clipboard.widget" : "com.example.clipboard",
            processID: widget ? "ClipboardWidget" : "Clipboard", changes: changes)
    }

    /// 40 transactions: #1 mirroring's setup; #2–#7 the app copies 60 items with their contents;
    /// #8 and #9 exports by the app and by its widget; #10 an import; #11–#14 `cleanup` deletes
    /// items 1–40 within 45 seconds, but the contents of only 1–30; #15 three contents without an
    /// item; #16–#40 the app edits items for twelve days, mirroring silent.
    public static func transactions() -> [FixtureStore.Transaction] {
        typealias C = FixtureStore.Change
        let mirror = "NSCloudKitMirroringDelegate"
        var txs = [tx(mirror + ".setup", mirror + ".setup", 0, [])]
        for batch in 0..<6 {
            let keys = Int64(batch * 10 + 1)...Int64(batch * 10 + 10)
            txs.append(
                tx(
                    "app", "viewContext", Double(1 + batch),
                    keys.flatMap {
                        [
                            C(entity: "Item", primaryKey: $0, type: .insert),
                            C(entity: "Content", primaryKey: $0, type: .insert),
                        ]
                    }))
        }
        txs.append(tx(mirror + ".export", mirror + ".export", 7, []))
        txs.append(tx(mirror + ".export", mirror + ".export", widget: true, 8, []))
        txs.append(
            tx(
                mirror + ".import", mirror + ".import", 9,
                [C(entity: "Item", primaryKey: 5, type: .update, updated: ["title"])]))
        for batch in 0..<4 {
            let items = Int64(batch * 10 + 1)...Int64(batch * 10 + 10)
            var changes = items.map { C(entity: "Item", primaryKey: $0, type: .delete) }
            changes += items.filter { $0 <= 30 }.map { C(entity: "Content", primaryKey: $0, type: .delete) }
            txs.append(tx("cleanup", "cleanup", 1440 + Double(batch) * 0.25, changes))
        }
        txs.append(
            tx("app", "viewContext", 1500, (61...63).map { C(entity: "Content", primaryKey: Int64($0), type: .insert) })
        )
        for k in 0..<25 {
            txs.append(
                tx(
                    "app", "viewContext", 2880 + Double(k) * 600,
                    [C(entity: "Item", primaryKey: Int64(41 + k % 20), type: .update, updated: ["title", "copiedAt"])]))
        }
        return txs
    }

    /// The rows left: items 41–60, the contents of items 31–60 (those of 31–40 name deleted
    /// items), and contents 61–63 with no item.
    public static func rows() -> [FixtureStore.Row] {
        var rows = (Int64(41)...60).map { key in
            FixtureStore.Row(
                entity: "Item", primaryKey: key,
                values: [
                    "title": .text("Clip \(key)"), "application": .text("Safari"),
                    "copiedAt": .real(Scenarios.baseTime + Double(key) * 60),
                ])
        }
        rows += (Int64(31)...60).map {
            FixtureStore.Row(
                entity: "Content", primaryKey: $0,
                values: ["type": .text("public.utf8-plain-text"), "item": .integer($0)])
        }
        rows += (Int64(61)...63).map {
            FixtureStore.Row(entity: "Content", primaryKey: $0, values: ["type": .text("public.png")])
        }
        return rows
    }

    /// The tokens the app keeps per store, as it encodes `[String: DefaultHistoryToken]` with
    /// `JSONEncoder` (each token `{"storeTokens":{identifier: number}}`): this store's at #12,
    /// and one for the app's other store.
    public static func tokenDictionary() -> [UInt8] {
        Array(
            (#"{"\#(storeUUID)":{"storeTokens":{"\#(storeUUID)":12}},"#
                + #""\#(otherStoreUUID)":{"storeTokens":{"\#(otherStoreUUID)":7}}}"#).utf8)
    }

    public static let scenario = Scenarios.Scenario(
        name: "Hazards", storeFile: "Clipboard.sqlite",
        summary:
            """
            A clipboard app's store (`Item` → `Content`, Cascade; `Item.title` indexed by Spotlight): `cleanup` \
            deleted 40 of 60 items in four transactions within 45 seconds (#11–#14), leaving the contents of ten \
            of them behind (dangling) beside three contents saved without an item (detached); CloudKit mirroring \
            ran in the app and in its widget (#8, #9), then the app wrote for twelve days with mirroring silent \
            (#15–#40). `swiftdata-tokens.json` holds SwiftData tokens keyed by store identifier: this store's at \
            #12 and another store's.
            """,
        store: FixtureStore(
            model: model, storeUUID: storeUUID, tombstoneColumnCount: 4, journalMode: .wal(keepInWAL: 0),
            transactions: transactions(), rows: rows()),
        writesXcdatamodel: false, extraFiles: ["swiftdata-tokens.json": tokenDictionary() + [0x0A]],
        mirroring: MirroringFixture(token: MirroringFixture.token(9, store: storeUUID)))
}
