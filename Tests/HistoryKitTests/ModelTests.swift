import Foundation
import TestSupport
import Testing

@testable import HistoryKit

@Suite struct ModelTests {
    @Test func archivedModelRoundTripsWithInheritanceAndRelationships() throws {
        let blob = ModelArchiveEncoder.modelCache(LibraryModel.model)
        let decoded = try ModelLoader.fromModelCache(blob, source: "test")
        #expect(decoded == LibraryModel.model)
        let ebook = try #require(decoded.entity(named: "EBook"))
        #expect(ebook.superentityName == "Book")
        #expect(ebook.properties.map(\.name) == ["fileSize"])
        #expect(decoded.inheritanceChain(of: "EBook").map(\.name) == ["Book", "EBook"])
        let shelf = try #require(decoded.entity(named: "Shelf")?.property(named: "books")?.relationship)
        #expect(
            shelf.isToMany && shelf.isOrdered && shelf.inverseName == "shelf" && shelf.destinationEntityName == "Book")
        #expect(decoded.entity(named: "Book")?.property(named: "ZZscratch")?.isTransient == true)
        #expect(
            decoded.entity(named: "Book")?.property(named: "title")?.attribute?.preservesValueInHistoryOnDeletion
                == true)
        #expect(decoded.entity(named: "Media")?.isAbstract == true)
        #expect(decoded.versionIdentifiers == ["1.0"])
    }

    @Test func damagedModelCacheIsAnErrorNamingTheSource() throws {
        #expect(throws: ModelError.self) {
            try ModelLoader.fromModelCache([1, 2, 3, 4], source: "x.sqlite: Z_MODELCACHE")
        }
        let notModel = RawDeflate.deflate(PropertyList.encodeBinary(.dictionary(["a": .integer(1)])))
        do {
            _ = try ModelLoader.fromModelCache(notModel, source: "x.sqlite: Z_MODELCACHE")
            Issue.record("expected an error")
        } catch let error as ModelError {
            #expect(error.description.hasPrefix("x.sqlite: Z_MODELCACHE: model cannot be decoded"))
        }
        let token = RawDeflate.deflate(HistoryTokenDecoder.encode(HistoryToken(storeUUID: "A", transactionNumber: 1)))
        #expect(
            throws: ModelError.undecodable(
                source: "t", reason: "the archived object is a _NSPersistentHistoryToken, not an NSManagedObjectModel")
        ) {
            try ModelLoader.fromModelCache(token, source: "t")
        }
    }

    static let contentsXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22A380" \
        minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">
                <attribute name="body" optional="YES" attributeType="String"/>
                <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO" \
        preserveAfterDeletion="YES"/>
                <attribute name="draft" optional="YES" transient="YES" attributeType="Boolean" \
        usesScalarValueType="YES"/>
                <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
                <fetchedProperty name="similar" optional="YES"><fetchRequest name="fetchedPropertyFetchRequest" \
        entity="Note"/></fetchedProperty>
                <userInfo><entry key="NSPersistentHistoryTombstoneAttributes" value="body"/></userInfo>
            </entity>
            <entity name="Folder" representedClassName="Folder" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" \
        destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
            </entity>
            <entity name="SmartFolder" representedClassName="SmartFolder" parentEntity="Folder" syncable="YES">
                <attribute name="query" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    @Test func xcdatamodelContentsAreRead() throws {
        let model = try XcdatamodelReader.read(Array(Self.contentsXML.utf8), source: "contents")
        #expect(model.entities.map(\.name) == ["Folder", "Note", "SmartFolder"])
        let note = try #require(model.entity(named: "Note"))
        #expect(note.property(named: "draft")?.isTransient == true)
        #expect(note.property(named: "similar")?.kind == .fetchedProperty)
        #expect(note.property(named: "id")?.attribute?.type == .uuid)
        #expect(note.property(named: "folder")?.relationship?.isToMany == false)
        #expect(note.userInfo["NSPersistentHistoryTombstoneAttributes"] == "body")
        #expect(model.entity(named: "Folder")?.property(named: "notes")?.relationship?.isOrdered == true)
        #expect(model.entity(named: "SmartFolder")?.superentityName == "Folder")
        let layout = try #require(SlotLayout(entity: "Note", model: model))
        // folder: foreign key, entity column (Folder has a subentity), order column (inverse is ordered); then body, id.
        #expect(layout.slots.map(\.propertyName) == ["folder", "folder", "folder", "body", "id"])
        #expect(
            layout.slots.map(\.role) == [
                .toOneForeignKey, .toOneEntityColumn, .toOneOrderColumn, .attribute, .attribute,
            ])
        #expect(layout.tombstoneAttributes == ["body", "id"])
        #expect(throws: ModelError.self) {
            try XcdatamodelReader.read(Array("<model><entity/></model>".utf8), source: "c")
        }
        #expect(throws: ModelError.self) { try XcdatamodelReader.read(Array("not xml".utf8), source: "c") }
    }

    @Test func modelBundlesResolveTheirCurrentVersion() throws {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        // .xcdatamodeld with two versions and .xccurrentversion naming the second.
        let bundle = dir.file("Notes.xcdatamodeld")
        for version in ["Notes", "Notes 2"] {
            try fm.createDirectory(atPath: "\(bundle)/\(version).xcdatamodel", withIntermediateDirectories: true)
            let xml = version == "Notes" ? "<model><entity name=\"Old\"/></model>" : Self.contentsXML
            try Data(xml.utf8).write(to: URL(fileURLWithPath: "\(bundle)/\(version).xcdatamodel/contents"))
        }
        try Data(PropertyList.encodeBinary(.dictionary(["_XCCurrentVersionName": .string("Notes 2.xcdatamodel")])))
            .write(to: URL(fileURLWithPath: "\(bundle)/.xccurrentversion"))
        let (model, source) = try ModelLoader.load(path: bundle)
        #expect(model.entity(named: "Note") != nil)
        #expect(source == .file(path: bundle, resolved: "\(bundle)/Notes 2.xcdatamodel/contents"))

        // .momd with VersionInfo.plist naming v2.mom.
        let momd = dir.file("Library.momd")
        try fm.createDirectory(atPath: momd, withIntermediateDirectories: true)
        let v1 = ManagedObjectModel(entities: [EntityDescription(name: "Only", properties: [])])
        try Data(BinaryPlistWriter.encode(ModelArchiveEncoder.archive(v1))).write(
            to: URL(fileURLWithPath: "\(momd)/v1.mom"))
        try Data(BinaryPlistWriter.encode(ModelArchiveEncoder.archive(LibraryModel.model))).write(
            to: URL(fileURLWithPath: "\(momd)/v2.mom"))
        try Data(PropertyList.encodeBinary(.dictionary(["NSManagedObjectModel_CurrentVersionName": .string("v2")])))
            .write(to: URL(fileURLWithPath: "\(momd)/VersionInfo.plist"))
        #expect(try ModelLoader.load(path: momd).model == LibraryModel.model)
        #expect(try ModelLoader.load(path: "\(momd)/v1.mom").model == v1)

        #expect(throws: ModelError.fileNotFound(path: dir.file("none.momd"))) {
            try ModelLoader.load(path: dir.file("none.momd"))
        }
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("model.txt")))
        #expect(throws: ModelError.self) { try ModelLoader.load(path: dir.file("model.txt")) }
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: dir.file("bad.mom")))
        #expect(throws: ModelError.self) { try ModelLoader.load(path: dir.file("bad.mom")) }
    }
}

@Suite struct SlotLayoutTests {
    @Test func groupsFollowTheSpecOrder() throws {
        let book = try #require(SlotLayout(entity: "Book", model: LibraryModel.model))
        #expect(
            book.slots.map(\.propertyName) == [
                "author", "cover", "shelf", "cover", "shelf", "isbn", "published", "title", "tags",
            ])
        #expect(
            book.slots.map(\.role) == [
                .toOneForeignKey, .toOneForeignKey, .toOneForeignKey, .toOneEntityColumn,
                .toOneOrderColumn, .attribute, .attribute, .attribute, .manyToMany,
            ])
        #expect(book.byteLength == 2)
        #expect(book.tombstoneAttributes == ["title"])
    }

    @Test func subentityAppendsItsLevelAfterTheRoot() throws {
        let ebook = try #require(SlotLayout(entity: "EBook", model: LibraryModel.model))
        #expect(
            ebook.slots.map(\.propertyName) == [
                "author", "cover", "shelf", "cover", "shelf", "isbn", "published", "title", "fileSize", "tags",
            ])
        // Legacy userInfo names come first, then flagged attributes in slot order.
        #expect(ebook.tombstoneAttributes == ["isbn", "title"])
        // A to-one relationship's foreign key and entity column name it once; other names keep slot order.
        #expect(ebook.propertyNames(forSlots: [1, 3, 4, 5]) == ["cover", "shelf", "isbn"])
        #expect(ebook.propertyNames(forSlots: [3, 1, 9]) == ["cover", "tags"])
    }

    @Test func byteWiseSortAndToManyGroups() throws {
        let tag = try #require(SlotLayout(entity: "Tag", model: LibraryModel.model))
        #expect(tag.slots.map(\.propertyName) == ["Zeta", "alpha", "name", "books"])
        let author = try #require(SlotLayout(entity: "Author", model: LibraryModel.model))
        #expect(author.slots.map(\.propertyName) == ["name", "uuid", "books"])
        #expect(author.slots.last?.role == .toManyInverseToOne)
        #expect(author.tombstoneAttributes == ["uuid"])
        #expect(SlotLayout(entity: "Nope", model: LibraryModel.model) == nil)
        #expect(tag.propertyNames(forSlots: [3, 0, 99]) == ["books", "Zeta"])
    }

    @Test func compositeAndDerivedAttributesAreFlagged() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Place",
                properties: [
                    PropertyDescription(
                        name: "address", kind: .attribute(AttributeInfo(type: .composite, isComposite: true))),
                    PropertyDescription(
                        name: "count", kind: .attribute(AttributeInfo(type: .integer64, isDerived: true))),
                ])
        ])
        let layout = try #require(SlotLayout(entity: "Place", model: model))
        #expect(layout.slots.count == 2)
        #expect(layout.notes.count == 2)
    }
}
