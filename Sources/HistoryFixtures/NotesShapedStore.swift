import HistoryKit

/// A store shaped like an iOS Notes history: nearly every change is an update (98 %), of a
/// few wide entities (a note and its data, dozens of properties each, subentities sharing one
/// table of many slots), one or two changes per transaction (2.2 on average), and hot objects:
/// the note being typed into is updated in about a fifth of all transactions, two others in
/// about a tenth each, so one object's history runs to hundreds of thousands of changes.
public enum NotesShapedStore {
    /// The shared syncing object's generic attributes, `s0` … `s79`, of rotating types.
    static let syncingFields = (0..<80).map { "s\($0)" }
    /// A note's own generic attributes, `n0` … `n39`.
    static let noteFields = (0..<40).map { "n\($0)" }
    /// A note data's generic attributes, `d0` … `d23`.
    static let dataFields = (0..<24).map { "d\($0)" }

    public static let model: ManagedObjectModel = {
        let types: [AttributeType] = [.integer16, .string, .date, .boolean, .integer64, .double, .binaryData]
        func fields(_ names: [String]) -> [PropertyDescription] {
            names.enumerated().map { ModelParts.attribute($0.element, types[$0.offset % types.count]) }
        }
        return ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "CloudSyncingObject",
                    properties: fields(syncingFields) + [
                        ModelParts.attribute("identifier", .string, preserve: true),
                        ModelParts.attribute("modificationDate", .date),
                        ModelParts.attribute("needsToBeFetchedFromCloud", .boolean),
                        ModelParts.attribute("serverRecordData", .binaryData),
                    ]),
                EntityDescription(
                    name: "Note", superentityName: "CloudSyncingObject",
                    properties: fields(noteFields) + [
                        ModelParts.attribute("title", .string), ModelParts.attribute("snippet", .string),
                        ModelParts.attribute("modificationDateForSorting", .date),
                        ModelParts.relationship("folder", "Folder", inverse: "notes", toMany: false),
                        ModelParts.relationship("noteData", "NoteData", inverse: "note", toMany: false),
                        ModelParts.relationship("attachments", "Attachment", inverse: "note", toMany: true),
                    ]),
                EntityDescription(
                    name: "Folder", superentityName: "CloudSyncingObject",
                    properties: [
                        ModelParts.attribute("title", .string),
                        ModelParts.relationship("notes", "Note", inverse: "folder", toMany: true),
                    ]),
                EntityDescription(
                    name: "Attachment", superentityName: "CloudSyncingObject",
                    properties: [
                        ModelParts.attribute("typeUTI", .string), ModelParts.attribute("fileSize", .integer64),
                        ModelParts.relationship("note", "Note", inverse: "attachments", toMany: false),
                    ]),
                EntityDescription(
                    name: "NoteData",
                    properties: fields(dataFields) + [
                        ModelParts.attribute("data", .binaryData), ModelParts.attribute("cryptoTag", .binaryData),
                        ModelParts.relationship("note", "Note", inverse: "noteData", toMany: false),
                    ]),
            ], versionIdentifiers: ["Notes 1"])
    }()

    public static let storeUUID = "A9B8C7D6-0000-4000-8000-00000000B0E5"

    public static var store: FixtureStore {
        FixtureStore(
            model: model, storeUUID: storeUUID, tombstoneColumnCount: 4, journalMode: .wal(keepInWAL: 0),
            transactions: [])
    }

    /// How many transactions make about `changes` changes (2.2 per transaction).
    public static func transactions(forChanges changes: Int) -> Int { max(1, changes * 5 / 11) }

    /// A deterministic spread of `i` and `j` (Knuth's multiplicative hash).
    private static func mix(_ i: Int, _ j: Int) -> Int { (i &* 2_654_435_761 &+ j &* 40_503 &+ 17) & 0x7fff_ffff }

    /// The note transaction `i` edits: note 1 in 22 % of transactions, notes 2 and 3 in 10 %
    /// each, the rest spread over 20,000 notes.
    static func note(_ i: Int) -> Int64 {
        let h = mix(i, 0) % 100
        return h < 22 ? 1 : h < 32 ? 2 : h < 42 ? 3 : Int64(4 + mix(i, 99) % 20_000)
    }

    /// Transaction `i`: the app's typing (no author, as a plain container saves), 5 % by the
    /// share extension, 5 % by CloudKit's import. Most edit a note and its data; one in five
    /// also touches an attachment: 2 % of all changes insert an object, 0.15 % delete one.
    public static func transaction(_ i: Int) -> FixtureStore.Transaction {
        // Hashed twice: mix(i, j) for nearby j are correlated, and the note is chosen by mix(i, 0).
        let h = mix(mix(i, 1), 5) % 100
        let (author, context, bundle, process): (String?, String?, String, String) =
            h < 90
            ? (nil, nil, "com.apple.mobilenotes", "MobileNotes")
            : h < 95
                ? (nil, nil, "com.apple.mobilenotes.SharingExtension", "com.apple.mobilenotes.SharingExtension")
                : (
                    "NSCloudKitMirroringDelegate.import", "NSCloudKitMirroringDelegate.import", "com.apple.mobilenotes",
                    "MobileNotes"
                )
        let n = note(i)
        var changes: [FixtureStore.Change] = [
            .init(
                entity: "Note", primaryKey: n, type: .update,
                updated: touched(
                    noteFields, i, 1, extra: ["modificationDate", "modificationDateForSorting", "snippet"])),
            .init(
                entity: "NoteData", primaryKey: n, type: .update,
                updated: touched(dataFields, i, 2, extra: ["data", "cryptoTag"])),
        ]
        if i % 5 == 4 {
            let k = mix(i, 3) % 10_000
            // Of these fifths: 21 % insert (2 % of all changes), 1.7 % delete (0.15 %), the rest update.
            switch k % 1_000 {
            case 0..<210:
                changes.append(
                    .init(entity: k % 2 == 0 ? "Attachment" : "Note", primaryKey: Int64(100_000 + i), type: .insert))
            case 210..<227:
                changes.append(
                    .init(
                        entity: "Attachment", primaryKey: Int64(100_000 + i - 5), type: .delete,
                        tombstone: ["identifier": .text("attachment-\(100_000 + i - 5)")]))
            default:
                changes.append(
                    .init(
                        entity: "Attachment", primaryKey: Int64(1 + k % 5_000), type: .update,
                        updated: touched(syncingFields, i, 4, extra: ["modificationDate", "fileSize"])))
            }
        }
        return FixtureStore.Transaction(
            timestamp: Scenarios.baseTime + Double(i) * 2, author: author, contextName: context,
            bundleID: bundle, processID: process, changes: changes)
    }

    /// 2 to 17 of `fields` (a stride coprime with their count never repeats one), and `extra`.
    private static func touched(_ fields: [String], _ i: Int, _ j: Int, extra: [String]) -> [String] {
        let h = mix(i, j)
        let count = 2 + (h / 13) % 16
        let start = (h / 31) % fields.count
        let step = [1, 7, 11, 13][(h / 3) % 4]
        return (0..<min(count, fields.count)).map { fields[(start + $0 * step) % fields.count] } + extra
    }
}
