import Foundation
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// Checks against stores written by Apple's frameworks (`../shared/real-stores`).
/// Skipped, with a printed notice, when that folder is absent.
@Suite(.enabled(if: RealStores.available)) struct RealStoreTests {
    @Test func countsIncludeTheWALAndUUIDsMatch() throws {
        let photos = try HistoryStore.open(RealStores.photos)
        let p = try photos.statistics(countingChangeTypes: true)
        #expect(p.transactionCount == 516)
        #expect(p.changeCount == 1776)
        #expect(p.updateCount == 1193 && p.deleteCount == 52 && p.insertCount == 531)
        #expect(photos.storeUUID == RealStores.photosUUID)
        #expect(photos.schema.tombstoneColumns.count == 4)
        #expect(photos.metadata.frameworkVersion == "977")
        #expect(photos.notices.isEmpty)

        let swiftData = try HistoryStore.open(RealStores.swiftData)
        let s = try swiftData.statistics()
        #expect(s.transactionCount == 38)
        #expect(s.changeCount == 55)
        #expect(swiftData.schema.tombstoneColumns.isEmpty)
        #expect(swiftData.metadata.frameworkVersion == "1345")
        #expect(swiftData.metadata.modelVersionIdentifiers == ["1.0.0"])
        var authors = Set<String?>()
        try swiftData.forEachTransaction(HistoryQuery()) { authors.insert($0.author) }
        #expect(authors == [nil])
    }

    @Test func photosModelCacheDecodesWithInheritance() throws {
        let store = try HistoryStore.open(RealStores.photos)
        let resolution = try store.resolveModel()
        let model = try #require(resolution.model)
        #expect(resolution.source == .storeCache)
        #expect(model.entities.count == 54)
        #expect(Set(model.entities.map(\.name)) == Set(store.catalog.entities.map(\.name)))
        #expect(model.entity(named: "Album")?.superentityName == "GenericAlbum")
        #expect(
            model.inheritanceChain(of: "CloudSharedAlbum").map(\.name) == ["GenericAlbum", "Album", "CloudSharedAlbum"])
        #expect(model.entity(named: "GenericAlbum")?.isAbstract == true)
        // Album declares one property of its own; the rest are GenericAlbum's.
        #expect(model.entity(named: "Album")?.properties.count == 1)
        #expect(model.entity(named: "GenericAlbum")?.properties.count == 28)
        // Catalog inheritance agrees with the model.
        for e in store.catalog.entities where e.superNumber != 0 {
            #expect(store.catalog.entity(number: e.superNumber)?.name == model.entity(named: e.name)?.superentityName)
        }
        #expect(store.catalog.rootTableName(of: 35) == "ZGENERICASSET")
    }

    @Test func everyPhotosUpdateDecodesExactly() throws {
        let store = try HistoryStore.open(RealStores.photos)
        let model = try store.resolveModel()
        let decoder = store.makeDecoder(model: model)
        var updates = 0
        var deletesWithValues = 0
        var namedValues = 0
        try store.forEachChange(HistoryQuery(), decoder: decoder) { change in
            #expect(change.warnings.isEmpty, "change \(change.changeID): \(change.warnings)")
            #expect(change.entityName != nil)
            switch change.changeType {
            case .update:
                updates += 1
                let layout = try #require(decoder.layout(forEntity: change.entityNumber))
                let properties = Set(model.model!.allProperties(of: layout.entityName).map(\.name))
                #expect(change.rawColumns?.count == layout.byteLength)
                #expect((change.updatedSlots ?? []).allSatisfy { $0 < layout.slots.count })
                let names = try #require(change.updatedProperties)
                #expect(!names.isEmpty)
                #expect(names.allSatisfy { properties.contains($0) })
            case .delete:
                if !change.tombstone.isEmpty {
                    deletesWithValues += 1
                    let layout = try #require(decoder.layout(forEntity: change.entityNumber))
                    #expect(
                        change.tombstone.allSatisfy {
                            layout.tombstoneAttributes.contains($0.name) && !$0.name.hasPrefix("ZTOMBSTONE")
                        })
                    namedValues += change.tombstone.count
                }
            default:
                break
            }
        }
        #expect(updates == 1193)
        #expect(deletesWithValues > 0)
        #expect(namedValues > deletesWithValues)
    }

    @Test func photosTombstonesMapToNamedTypedAttributes() throws {
        let store = try HistoryStore.open(RealStores.photos)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        var person: Change?
        try store.forEachChange(HistoryQuery(entities: ["Person"], changeTypes: [.delete], limit: 1), decoder: decoder)
        { person = $0 }
        let p = try #require(person)
        #expect(p.tombstone.map(\.name) == ["cloudDeleteState", "personUUID"])
        #expect(p.tombstone[0].value == .integer(0))
        #expect(p.tombstone[0].attributeType == .integer16)
        #expect(p.tombstone[1].attributeType == .string)
        if case .text(let uuid) = p.tombstone[1].value {
            #expect(UUID(uuidString: uuid) != nil)
        } else {
            Issue.record("personUUID is not text")
        }
        #expect(p.changedObjectID?.hasPrefix("x-coredata://\(RealStores.photosUUID)/Person/p") == true)
    }

    @Test func archivedTokenPointsAtTransaction516() throws {
        let data = try #require(FileManager.default.contents(atPath: RealStores.photosToken))
        let token = try HistoryTokenDecoder.decode(fileBytes: [UInt8](data), source: RealStores.photosToken)
        #expect(token.transactionNumbers == [RealStores.photosUUID: 516])
        let store = try HistoryStore.open(RealStores.photos)
        let number = try #require(token.transactionNumber(forStore: store.storeUUID))
        let tx = try #require(try store.transaction(number: number))
        #expect(tx.number == 516)
        #expect(tx.token == token)
        var after = 0
        try store.forEachTransaction(HistoryQuery(after: .token(token))) { _ in after += 1 }
        #expect(after == 0)
    }

    @Test func readingChangesNoByteOfTheRealStores() throws {
        for (folder, file) in [("photos-10.15.7", "Photos.sqlite"), ("swiftdata-resources", "default.store")] {
            let dir = RealStores.directory! + "/" + folder
            let before = try DirectoryState(dir)
            try readEverything(dir + "/" + file)
            #expect(try DirectoryState(dir) == before, "\(folder) changed")
        }
    }

    @Test func copiesWithoutShmInAReadOnlyFolderAreReadThroughASnapshot() throws {
        for (folder, file, count) in [
            ("photos-10.15.7", "Photos.sqlite", 516), ("swiftdata-resources", "default.store", 38),
        ] {
            let dir = try TemporaryDirectory()
            try dir.copy(from: RealStores.directory! + "/" + folder, prefix: file)
            try FileManager.default.removeItem(atPath: dir.file(file + "-shm"))
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
            let before = try DirectoryState(dir.path)
            do {
                let store = try HistoryStore.open(dir.file(file))
                #expect(try store.statistics().transactionCount == count)
                #expect(store.notices.contains(.walWithoutShm(path: dir.file(file))))
                #expect(store.notices.contains { if case .readFromSnapshot = $0 { return true } else { return false } })
                try readEverything(dir.file(file))
            }
            #expect(try DirectoryState(dir.path) == before)
        }
    }

    @Test func spaceUsageOfTheHistoryTables() throws {
        let stats = try HistoryStore.open(RealStores.photos).statistics()
        #expect(stats.space.method == .dbstat)
        #expect(stats.space.pageSize == 4096)
        #expect(stats.space.historyBytes > 0 && stats.space.historyBytes < stats.space.databaseBytes)
        #expect(stats.transactionNumbers == 1...516)
        #expect(stats.purgeTraces.transactionHighWaterMark == 516)
        #expect(!stats.purgeTraces.anyTrace)
    }

    private func readEverything(_ path: String) throws {
        let store = try HistoryStore.open(path)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        _ = try store.statistics()
        var n = 0
        try store.forEachTransactionWithChanges(HistoryQuery(), decoder: decoder) { _, changes in
            try changes.forEach { _ in n += 1 }
        }
        #expect(n == (try store.statistics().changeCount))
    }
}
