import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// Entities sharing one table and declaring the same property name: each has a
/// column of its own (`ZTITLE`, `ZTITLE1`, `ZTITLE2`), and `object` and the
/// labels read each entity's own. The expected columns are those of Apple Notes'
/// `ZICCLOUDSYNCINGOBJECT` (a real iOS store) and of Photos' `ZGENERICALBUM`.
@Suite struct SharedTableTests {
    private static func attribute(_ name: String, _ type: AttributeType = .string) -> PropertyDescription {
        PropertyDescription(name: name, kind: .attribute(AttributeInfo(type: type)))
    }

    private static func toOne(_ name: String, _ destination: String) -> PropertyDescription {
        PropertyDescription(
            name: name,
            kind: .relationship(RelationshipInfo(destinationEntityName: destination, inverseName: nil, maxCount: 1)))
    }

    /// The part of Notes' model that names columns in `ZICCLOUDSYNCINGOBJECT`, listed out of order
    /// (Core Data sorts subentities by name, ignoring case).
    static let notes = ManagedObjectModel(entities: [
        EntityDescription(
            name: "ICFolder", superentityName: "ICNoteContainer",
            properties: [attribute("title"), attribute("mergeableData", .binaryData), toOne("account", "ICAccount")]),
        EntityDescription(
            name: "ICNote", superentityName: "ICCloudSyncingObject",
            properties: [
                attribute("title"), attribute("creationDate", .date), attribute("modificationDate", .date),
                toOne("account", "ICAccount"),
                attribute("größe", .integer64),
            ]),
        EntityDescription(name: "ICCloudSyncingObject", properties: [attribute("identifier")]),
        EntityDescription(
            name: "ICAttachment", superentityName: "ICCloudSyncingObject",
            properties: [
                attribute("title"), attribute("creationDate", .date), attribute("modificationDate", .date),
                attribute("mergeableData", .binaryData),
            ]),
        EntityDescription(name: "ICNoteContainer", superentityName: "ICCloudSyncingObject", properties: []),
        EntityDescription(name: "ICAccount", superentityName: "ICNoteContainer", properties: [attribute("name")]),
        EntityDescription(
            name: "ICAccountData", superentityName: "ICCloudSyncingObject",
            properties: [attribute("mergeableData", .binaryData), toOne("account", "ICAccount")]),
        EntityDescription(
            name: "ICMedia",
            superentityName: """
                ICCloudSyncingObject
                """, properties: [toOne("attachment", "ICAttachment")]),
        EntityDescription(
            name: "ICAttachmentPreviewImage", superentityName: "ICCloudSyncingObject",
            properties: [toOne("attachment", "ICAttachment")]),
        EntityDescription(
            name: "ICDeviceMigrationState", superentityName: "ICCloudSyncingObject",
            properties: [toOne("account", "ICAccount")]),
        EntityDescription(
            name: "ICLegacyTombstone", superentityName: "ICCloudSyncingObject",
            properties: [toOne("account", "ICAccount")]),
    ])

    @Test func columnsAreNumberedAsInTheRealNotesStore() {
        let names = ColumnNames(model: Self.notes) { _ in nil }
        let expected: [(String, String, String)] = [
            ("ICAttachment", "title", "ZTITLE"), ("ICNote", "title", "ZTITLE1"), ("ICFolder", "title", "ZTITLE2"),
            ("ICAttachment", "creationDate", "ZCREATIONDATE"), ("ICNote", "creationDate", "ZCREATIONDATE1"),
            ("ICAttachment", "modificationDate", "ZMODIFICATIONDATE"),
            ("ICNote", "modificationDate", "ZMODIFICATIONDATE1"),
            ("ICAccountData", "mergeableData", "ZMERGEABLEDATA"), ("ICAttachment", "mergeableData", "ZMERGEABLEDATA1"),
            ("ICFolder", "mergeableData", "ZMERGEABLEDATA2"),
            ("ICAccountData", "account", "ZACCOUNT"), ("ICDeviceMigrationState", "account", "ZACCOUNT1"),
            ("ICLegacyTombstone", "account", "ZACCOUNT2"), ("ICNote", "account", "ZACCOUNT3"),
            ("ICFolder", "account", "ZACCOUNT4"),
            ("ICAttachmentPreviewImage", "attachment", "ZATTACHMENT"), ("ICMedia", "attachment", "ZATTACHMENT1"),
            ("ICCloudSyncingObject", "identifier", "ZIDENTIFIER"), ("ICAccount", "name", "ZNAME"),
        ]
        for (entity, property, column) in expected {
            #expect(names.column(entity: entity, property: property) == column, "\(entity).\(property)")
        }
    }

    /// A generated store of that shape: SQLite's own row, read by the expected column, is what `object` and the labels show.
    @Test func objectAndLabelsReadEachEntitysOwnColumn() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("NoteStore.sqlite")
        let rows = [
            FixtureStore.Row(
                entity: "ICNote", primaryKey: 1,
                values: ["title": .text("Groceries"), "creationDate": .real(700_000_000), "größe": .integer(3)]),
            FixtureStore.Row(entity: "ICFolder", primaryKey: 2, values: ["title": .text("Recipes")]),
            FixtureStore.Row(
                entity: "ICAttachment", primaryKey: 3,
                values: ["title": .text("photo.jpg"), "creationDate": .real(600_000_000)]),
        ]
        try StoreWriter.write(
            FixtureStore(
                model: Self.notes, storeUUID: "0F0F0F0F-1111-4222-8333-444444444444", journalMode: .rollback,
                transactions: [], rows: rows), to: path)
        let queue = try DatabaseQueue(path: path)
        let sqlite = try queue.read { db in
            try [1, 2, 3].map { pk in
                try Row.fetchOne(
                    db,
                    sql:
                        """
                        SELECT ZTITLE, ZTITLE1, ZTITLE2, ZCREATIONDATE, ZCREATIONDATE1 FROM ZICCLOUDSYNCINGOBJECT \
                        WHERE Z_PK = ?
                        """,
                    arguments: [pk])
            }
        }
        try queue.close()
        #expect(sqlite[0]?["ZTITLE1"] == "Groceries" && sqlite[0]?["ZCREATIONDATE1"] == 700_000_000.0)
        #expect(sqlite[1]?["ZTITLE2"] == "Recipes")
        #expect(sqlite[2]?["ZTITLE"] == "photo.jpg" && sqlite[2]?["ZCREATIONDATE"] == 600_000_000.0)
        // Core Data capitalizes a–z only, as SQLite compares them: größe is ZGRößE.
        let size = try DatabaseQueue(path: path).read {
            try Int.fetchOne($0, sql: "SELECT \"ZGRößE\" FROM ZICCLOUDSYNCINGOBJECT WHERE Z_PK = 1")
        }
        #expect(size == 3)
        #expect((try CLI.run(["object", path, "ICNote/p1"]).json()["values"] as? [String: Any])?["größe"] as? Int == 3)

        for (object, title) in [
            ("ICNote/p1", "Groceries"), ("ICFolder/p2", "Recipes"), ("ICAttachment/p3", "photo.jpg"),
        ] {
            let doc = try CLI.run(["object", path, object]).json()
            let values = try #require(doc["values"] as? [String: Any])
            #expect(values["title"] as? String == title, "\(object): \(values)")
            #expect((doc["problems"] as? [String])?.isEmpty == true, "\(object): \(doc["problems"] ?? "")")
        }
        let store = try HistoryStore.open(path)
        let labeler = try ObjectLabeler(store: store, model: Self.notes)
        for (entity, pk, title) in [
            ("ICNote", Int64(1), "Groceries"), ("ICFolder", 2, "Recipes"), ("ICAttachment", 3, "photo.jpg"),
        ] {
            let number = try #require(store.catalog.entity(named: entity)?.number)
            #expect(try labeler.label(entityNumber: number, primaryKey: pk) == title)
        }
    }

    /// Photos 15.4.1: Album's searchIndexRebuildState is ZSEARCHINDEXREBUILDSTATE, FetchingAlbum's
    /// ZSEARCHINDEXREBUILDSTATE1; in every real store every column named is one the table has.
    @Test(.enabled(if: RealStores.available)) func realStoresHaveEveryNamedColumn() throws {
        let photos15 = try #require(RealStores.directory) + "/photos-15.4.1/Photos.sqlite"
        for path in [RealStores.photos, photos15, RealStores.swiftData] {
            let dir = try TemporaryDirectory()
            let copy = try WatchTests.copy(path, into: dir)
            let store = try HistoryStore.open(copy)
            let model = try #require(try store.resolveModel().model)
            let names = ColumnNames(model: model) { store.catalog.entity(named: $0)?.number }
            var checked = 0
            for entity in model.entities {
                guard let number = store.catalog.entity(named: entity.name)?.number,
                    let table = store.catalog.rootTableName(of: number)
                else { continue }
                let columns = Set(
                    try ObjectTests.read(copy) {
                        try String.fetchAll($0, sql: "SELECT upper(name) FROM pragma_table_info(?)", arguments: [table])
                    })
                for property in entity.properties where property.isStored && property.relationship?.isToMany != true {
                    let column = try #require(names.column(entity: entity.name, property: property.name))
                    #expect(
                        columns.contains(column), "\(path): \(entity.name).\(property.name) → \(column) not in \(table)"
                    )
                    checked += 1
                }
            }
            #expect(checked >= 8, "\(path): \(checked) properties")
            if path == photos15 {
                #expect(
                    names.column(entity: "Album", property: "searchIndexRebuildState") == "ZSEARCHINDEXREBUILDSTATE")
                #expect(
                    names.column(entity: "FetchingAlbum", property: "searchIndexRebuildState")
                        == "ZSEARCHINDEXREBUILDSTATE1")
                // Each object's value is SQLite's own, from its entity's column.
                let (album, fetching) = try ObjectTests.read(photos15) { db in
                    (
                        try Row.fetchOne(
                            db,
                            sql:
                                """
                                SELECT Z_PK, ZSEARCHINDEXREBUILDSTATE FROM ZGENERICALBUM WHERE Z_ENT = 30 ORDER \
                                BY Z_PK LIMIT 1
                                """
                        ),
                        try Row.fetchOne(
                            db,
                            sql:
                                """
                                SELECT Z_PK, ZSEARCHINDEXREBUILDSTATE1 FROM ZGENERICALBUM WHERE Z_ENT = 37 ORDER \
                                BY Z_PK LIMIT 1
                                """
                        )
                    )
                }
                for (entity, row) in [("Album", album), ("FetchingAlbum", fetching)] {
                    let row = try #require(row)
                    let pk: Int64 = row[0]
                    let expected: Int64 = row[1]
                    let values = try #require(
                        try CLI.run(["object", copy, "\(entity)/p\(pk)"]).json()["values"] as? [String: Any])
                    #expect(
                        values["searchIndexRebuildState"] as? Int64 == expected
                            || values["searchIndexRebuildState"] as? Int == Int(expected),
                        "\(entity)/p\(pk): \(values["searchIndexRebuildState"] ?? "nil")")
                }
            }
        }
    }
}
