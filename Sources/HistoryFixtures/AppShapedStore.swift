import HistoryKit

/// A store shaped like a real iOS app's history rather than like our fixtures: small
/// transactions (2.2 changes on average), most of them without an author (only a
/// bundle ID and a process, as a plain `NSPersistentContainer` writes them), and one
/// very wide entity table (`Item`, 124 attributes, three subentities sharing it) whose
/// updates touch 5 to 40 properties, so ZCOLUMNS masks are long.
public enum AppShapedStore {
    /// `Item`'s generic attributes, `f0` … `f119`, of rotating types.
    static let fieldNames = (0..<120).map { "f\($0)" }

    public static let model: ManagedObjectModel = {
        let types: [AttributeType] = [.string, .integer64, .double, .date, .boolean, .integer32]
        let fields = fieldNames.enumerated().map { ModelParts.attribute($0.element, types[$0.offset % types.count]) }
        return ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Item",
                    properties: fields + [
                        ModelParts.attribute("title", .string, preserve: true),
                        ModelParts.attribute("uuid", .uuid, preserve: true),
                        ModelParts.attribute("createdAt", .date), ModelParts.attribute("modifiedAt", .date),
                        ModelParts.relationship("folder", "Folder", inverse: "items", toMany: false),
                        ModelParts.relationship("tags", "Tag", inverse: "items", toMany: true),
                    ]),
                EntityDescription(
                    name: "Book", superentityName: "Item",
                    properties: [ModelParts.attribute("isbn", .string), ModelParts.attribute("pages", .integer32)]),
                EntityDescription(
                    name: "Track", superentityName: "Item",
                    properties: [ModelParts.attribute("artist", .string), ModelParts.attribute("duration", .double)]),
                EntityDescription(
                    name: "Episode", superentityName: "Item",
                    properties: [ModelParts.attribute("show", .string), ModelParts.attribute("number", .integer32)]),
                EntityDescription(
                    name: "Folder",
                    properties: [
                        ModelParts.attribute("name", .string, preserve: true),
                        ModelParts.relationship("items", "Item", inverse: "folder", toMany: true),
                    ]),
                EntityDescription(
                    name: "Tag",
                    properties: [
                        ModelParts.attribute("name", .string, preserve: true),
                        ModelParts.relationship("items", "Item", inverse: "tags", toMany: true),
                    ]),
            ], versionIdentifiers: ["Library 1"])
    }()

    public static let storeUUID = "A9B8C7D6-0000-4000-8000-00000000A995"

    public static var store: FixtureStore {
        FixtureStore(
            model: model, storeUUID: storeUUID, tombstoneColumnCount: 4, journalMode: .wal(keepInWAL: 0),
            transactions: [])
    }

    /// Changes in transaction `i`: 2, 2, 3, 2, 2, 2, 2, 3, 2 … (2.22 on average).
    static func changeCount(_ i: Int) -> Int { [2, 2, 3, 2, 2, 2, 2, 3, 2][i % 9] }

    /// How many transactions make about `changes` changes.
    public static func transactions(forChanges changes: Int) -> Int { max(1, changes * 9 / 20) }

    /// A deterministic spread of `i` and `j` (Knuth's multiplicative hash).
    private static func mix(_ i: Int, _ j: Int) -> Int { (i &* 2_654_435_761 &+ j &* 40_503 &+ 17) & 0x7fff_ffff }

    /// Transaction `i`: 88 % without an author (the app's bundle and process only), 6 % by the
    /// app's view context, 3 % by its widget without an author, 3 % by CloudKit's import.
    public static func transaction(_ i: Int) -> FixtureStore.Transaction {
        let h = mix(i, 0) % 100
        let (author, context, bundle, process): (String?, String?, String, String) =
            h < 88
            ? (nil, nil, "com.example.library", "Library")
            : h < 94
                ? ("app", "viewContext", "com.example.library", "Library")
                : h < 97
                    ? (nil, nil, "com.example.library.widget", "LibraryWidget")
                    : (
                        "NSCloudKitMirroringDelegate.import", "NSCloudKitMirroringDelegate.import",
                        "com.example.library", "Library"
                    )
        let changes = (0..<changeCount(i)).map { change(i, $0) }
        return FixtureStore.Transaction(
            timestamp: Scenarios.baseTime + Double(i) * 20, author: author, contextName: context,
            bundleID: bundle, processID: process, changes: changes)
    }

    /// Change `j` of transaction `i`: 85 % of the Item family (its subentities share its table),
    /// 10 % folders, 5 % tags; 18 % inserts, 77 % updates, 5 % deletes with tombstones. Keys come
    /// from a pool of 200,000 objects, so an object changes many times.
    static func change(_ i: Int, _ j: Int) -> FixtureStore.Change {
        let h = mix(i, j + 1)
        let pk = Int64(1 + h % 200_000)
        let which = (h / 7) % 100
        let entity =
            which < 40
            ? "Item"
            : which < 60 ? "Book" : which < 75 ? "Track" : which < 85 ? "Episode" : which < 95 ? "Folder" : "Tag"
        let kind = (h / 701) % 100
        if kind < 18 { return .init(entity: entity, primaryKey: pk, type: .insert) }
        let itemFamily = which < 85
        if kind >= 95 {
            let tombstone: [String: StoredValue] =
                itemFamily
                ? ["title": .text("Item \(pk)"), "uuid": .blob(Scenarios.uuidBytes(Int(pk)))]
                : ["name": .text("\(entity.lowercased())-\(pk % 500)")]
            return .init(entity: entity, primaryKey: pk, type: .delete, tombstone: tombstone)
        }
        guard itemFamily else {
            return .init(entity: entity, primaryKey: pk, type: .update, updated: h % 2 == 0 ? ["name"] : ["items"])
        }
        // 5 to 40 distinct generic fields (a stride coprime with 120 never repeats one), and the date.
        let count = 5 + (h / 13) % 36
        let start = (h / 31) % fieldNames.count
        let step = [1, 7, 11, 13, 17][(h / 3) % 5]
        let updated = (0..<count).map { fieldNames[(start + $0 * step) % fieldNames.count] } + ["modifiedAt"]
        return .init(entity: entity, primaryKey: pk, type: .update, updated: updated)
    }
}
