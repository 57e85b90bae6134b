import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport

/// A model exercising every slot group, inheritance and tombstone source.
enum LibraryModel {
    static func attribute(_ name: String, _ type: AttributeType, preserve: Bool = false, transient: Bool = false)
        -> PropertyDescription
    {
        PropertyDescription(
            name: name,
            kind: .attribute(AttributeInfo(type: type, flags: preserve ? AttributeInfo.preserveAfterDeletionFlag : 0)),
            isTransient: transient)
    }

    static func relationship(
        _ name: String, to destination: String, inverse: String?, toMany: Bool, ordered: Bool = false
    ) -> PropertyDescription {
        PropertyDescription(
            name: name,
            kind: .relationship(
                RelationshipInfo(
                    destinationEntityName: destination, inverseName: inverse, maxCount: toMany ? 0 : 1,
                    isOrdered: ordered)))
    }

    static let model = ManagedObjectModel(
        entities: [
            EntityDescription(
                name: "Author",
                properties: [
                    attribute("name", .string), attribute("uuid", .uuid, preserve: true),
                    relationship("books", to: "Book", inverse: "author", toMany: true),
                ]),
            EntityDescription(
                name: "Book",
                properties: [
                    attribute("title", .string, preserve: true), attribute("isbn", .string),
                    attribute("published", .date),
                    attribute("ZZscratch", .string, transient: true),
                    relationship("author", to: "Author", inverse: "books", toMany: false),
                    relationship("shelf", to: "Shelf", inverse: "books", toMany: false),
                    relationship("tags", to: "Tag", inverse: "books", toMany: true),
                    relationship("cover", to: "Media", inverse: "book", toMany: false),
                ]),
            EntityDescription(
                name: "EBook", superentityName: "Book", properties: [attribute("fileSize", .integer64)],
                userInfo: ["NSPersistentHistoryTombstoneAttributes": "isbn"]),
            EntityDescription(
                name: "Media", isAbstract: true,
                properties: [
                    attribute("url", .uri), relationship("book", to: "Book", inverse: "cover", toMany: false),
                ]),
            EntityDescription(name: "Image", superentityName: "Media", properties: [attribute("width", .double)]),
            EntityDescription(name: "Video", superentityName: "Media", properties: [attribute("duration", .double)]),
            EntityDescription(
                name: "Shelf",
                properties: [
                    attribute("label", .string),
                    relationship("books", to: "Book", inverse: "shelf", toMany: true, ordered: true),
                ]),
            EntityDescription(
                name: "Tag",
                properties: [
                    attribute("name", .string), attribute("Zeta", .string), attribute("alpha", .string),
                    relationship("books", to: "Book", inverse: "tags", toMany: true),
                ]),
        ], versionIdentifiers: ["1.0"])

    static let storeUUID = "11111111-2222-3333-4444-555555555555"

    /// Base date: 2024-01-01 00:00:00 UTC in Cocoa seconds.
    static let t0 = 725_760_000.0

    /// Six transactions by three authors, with inserts, updates and deletes.
    static func fixture(
        journalMode: FixtureStore.JournalMode = .wal(keepInWAL: 2),
        writesModelCache: Bool = true, tombstoneColumns: Int = 4
    ) -> FixtureStore {
        FixtureStore(
            model: model, storeUUID: storeUUID, tombstoneColumnCount: tombstoneColumns,
            writesModelCache: writesModelCache, journalMode: journalMode,
            transactions: [
                .init(
                    timestamp: t0, author: "app", contextName: "viewContext", bundleID: "com.example.app",
                    processID: "App",
                    changes: [
                        .init(entity: "Author", primaryKey: 1, type: .insert),
                        .init(entity: "Book", primaryKey: 1, type: .insert),
                        .init(entity: "EBook", primaryKey: 2, type: .insert),
                    ]),
                .init(
                    timestamp: t0 + 60.25, author: "widget", contextName: "widgetContext",
                    bundleID: "com.example.app.widget", processID: "Widget",
                    changes: [
                        .init(entity: "Book", primaryKey: 1, type: .update, updated: ["title", "shelf"])
                    ]),
                .init(
                    timestamp: t0 + 120.5, author: nil, contextName: nil,
                    changes: [
                        .init(entity: "Image", primaryKey: 1, type: .insert),
                        .init(entity: "Tag", primaryKey: 1, type: .update, updated: ["Zeta", "books"]),
                    ]),
                .init(
                    timestamp: t0 + 3600, author: "app", contextName: "viewContext", bundleID: "com.example.app",
                    processID: "App",
                    changes: [
                        .init(
                            entity: "EBook", primaryKey: 2, type: .delete,
                            tombstone: ["isbn": .text("978-0"), "title": .text("Dune")]),
                        .init(
                            entity: "Author", primaryKey: 1, type: .delete, tombstone: ["uuid": .blob([0xAB, 0xCD])]),
                    ]),
                .init(
                    timestamp: t0 + 7200, author: "shareExtension", contextName: "share",
                    bundleID: "com.example.app.share", processID: "Share",
                    changes: [
                        .init(entity: "Book", primaryKey: 3, type: .insert),
                        .init(entity: "EBook", primaryKey: 4, type: .update, updated: ["fileSize", "cover"]),
                    ]),
                .init(
                    timestamp: t0 + 7260, author: "app", contextName: "batchImport", bundleID: "com.example.app",
                    processID: "App",
                    changes: [
                        .init(entity: "Video", primaryKey: 2, type: .insert)
                    ]),
            ])
    }

    /// Writes `fixture` into `dir` as `Library.sqlite` and returns its path.
    static func write(_ fixture: FixtureStore, in dir: TemporaryDirectory, name: String = "Library.sqlite") throws
        -> String
    {
        let path = dir.file(name)
        try StoreWriter.write(fixture, to: path)
        return path
    }
}

/// A writable copy of the demo store (`fixtures/AppGroup/Tasks.sqlite`) in `dir`, changed
/// by `edit` (to what Core Data never writes); its path.
func editedTasksStore(in dir: TemporaryDirectory, _ edit: (Database) throws -> Void) throws -> String {
    try dir.copy(from: Repository.fixtures + "/AppGroup", prefix: "Tasks.sqlite")
    let path = dir.file("Tasks.sqlite")
    let queue = try DatabaseQueue(path: path)
    try queue.write(edit)
    try queue.close()
    return path
}
