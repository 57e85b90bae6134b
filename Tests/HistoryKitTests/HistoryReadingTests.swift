import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

@Suite struct HistoryReadingTests {
    private func withStore<T>(_ fixture: FixtureStore = LibraryModel.fixture(), _ body: (HistoryStore) throws -> T)
        throws -> T
    {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(fixture, in: dir)
        let store = try HistoryStore.open(path)
        return try body(store)
    }

    private func numbers(_ store: HistoryStore, _ query: HistoryQuery) throws -> [Int64] {
        var out: [Int64] = []
        try store.forEachTransaction(query) { out.append($0.number) }
        return out
    }

    @Test func storeFacts() throws {
        try withStore { store in
            #expect(store.storeUUID == LibraryModel.storeUUID)
            #expect(store.metadata.frameworkVersion == "1345")
            #expect(store.metadata.storeType == "SQLite")
            #expect(store.metadata.modelVersionIdentifiers == ["1.0"])
            #expect(store.metadata.modelVersionHashes.count == 8)
            #expect(
                store.catalog.entities.map(\.name) == [
                    "Author", "Book", "EBook", "Media", "Image", "Video", "Shelf", "Tag",
                ])
            let ebook = try #require(store.catalog.entity(named: "EBook"))
            #expect(store.catalog.rootTableName(of: ebook.number) == "ZBOOK")
            let media = try #require(store.catalog.entity(named: "Media"))
            #expect(Set(store.catalog.descendants(of: media.number)) == Set([4, 5, 6]))
            #expect(store.schema.tombstoneColumns == ["ZTOMBSTONE0", "ZTOMBSTONE1", "ZTOMBSTONE2", "ZTOMBSTONE3"])
            let stats = try store.statistics(countingChangeTypes: true)
            #expect(stats.transactionCount == 6)
            #expect(stats.changeCount == 11)
            #expect(stats.insertCount == 6 && stats.updateCount == 3 && stats.deleteCount == 2)
            #expect(stats.stringCount == 13)
            #expect(stats.transactionNumbers == 1...6)
            #expect(stats.timestamps == LibraryModel.t0...(LibraryModel.t0 + 7260))
            #expect(!stats.purgeTraces.anyTrace)
            #expect(stats.space.tables.map(\.name) == ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"])
            #expect(stats.space.method == .dbstat)
            #expect(stats.space.tables.allSatisfy { $0.pages >= 1 && $0.bytes == $0.pages * stats.space.pageSize })
            #expect(store.files.walSize != nil && store.files.shmSize != nil)
        }
    }

    /// A query's transactions counted (export's progress total) are those it reads; with a
    /// change filter only reading changes would tell.
    @Test func queriesCountTheirTransactions() throws {
        try withStore { store in
            let queries = [
                HistoryQuery(), HistoryQuery(before: .transaction(3)),
                HistoryQuery(after: .transaction(2), authors: [.value("app")]),
                HistoryQuery(authors: [.none]), HistoryQuery(limit: 2), HistoryQuery(limit: 0),
            ]
            for query in queries {
                let read = try numbers(store, query).count
                #expect(try store.transactionCount(query) == read, "\(query)")
            }
            #expect(try store.transactionCount(HistoryQuery(before: .transaction(3))) == 2)
            #expect(try store.transactionCount(HistoryQuery(changeTypes: [.delete])) == nil)
            #expect(try store.transactionCount(HistoryQuery(entities: ["Book"])) == nil)
        }
    }

    @Test func purgeTracesAreFound() throws {
        var fixture = LibraryModel.fixture()
        fixture.purgedTransactions = 1...2
        try withStore(fixture) { store in
            let traces = try store.statistics().purgeTraces
            #expect(traces.startsAfterFirst)
            #expect(!traces.highWaterMarkAboveLast)
            #expect(traces.transactionHighWaterMark == 6)
        }
        fixture.purgedTransactions = 3...6
        try withStore(fixture) { store in
            let traces = try store.statistics().purgeTraces
            #expect(!traces.startsAfterFirst && traces.highWaterMarkAboveLast)
        }
        fixture.purgedTransactions = 3...4
        try withStore(fixture) { store in
            let gaps = try store.statistics().purgeTraces.transactionGaps
            #expect(gaps == 2)
        }
    }

    @Test func transactionFieldsAndStrings() throws {
        try withStore { store in
            var all: [Transaction] = []
            try store.forEachTransaction(HistoryQuery()) { all.append($0) }
            #expect(all.count == 6)
            let second = all[1]
            #expect(second.number == 2)
            #expect(second.timestamp == LibraryModel.t0 + 60.25)
            #expect(second.author == "widget" && second.contextName == "widgetContext")
            #expect(second.bundleID == "com.example.app.widget" && second.processID == "Widget")
            #expect(second.changeCount == 1)
            #expect(second.token == HistoryToken(storeUUID: LibraryModel.storeUUID, transactionNumber: 2))
            #expect(all[2].author == nil && all[2].contextName == nil)
            #expect(all[0].queryGenerationLength == nil)
        }
    }

    @Test func filtersFollowCoreDataSemantics() throws {
        try withStore { store in
            let t0 = LibraryModel.t0
            #expect(try numbers(store, HistoryQuery(after: .date(t0 + 60.25))) == [3, 4, 5, 6])
            #expect(try numbers(store, HistoryQuery(before: .date(t0 + 3600))) == [1, 2, 3])
            #expect(try numbers(store, HistoryQuery(after: .transaction(4))) == [5, 6])
            #expect(try numbers(store, HistoryQuery(before: .transaction(4))) == [1, 2, 3])
            let token = HistoryToken(storeUUID: LibraryModel.storeUUID, transactionNumber: 5)
            #expect(try numbers(store, HistoryQuery(after: .token(token))) == [6])
            #expect(try numbers(store, HistoryQuery(before: .token(token))) == [1, 2, 3, 4])
            let other = HistoryToken(storeUUID: "OTHER", transactionNumber: 1)
            #expect(
                throws: StoreQueryError(
                    path: store.path, .tokenForOtherStore(token: other, storeUUID: LibraryModel.storeUUID))
            ) {
                try numbers(store, HistoryQuery(after: .token(other)))
            }
            #expect(try numbers(store, HistoryQuery(authors: [.value("app")])) == [1, 4, 6])
            #expect(try numbers(store, HistoryQuery(authors: [.value("widget"), .none])) == [2, 3])
            #expect(try numbers(store, HistoryQuery(contextNames: [.value("batchImport")])) == [6])
            #expect(try numbers(store, HistoryQuery(bundleIDs: [.value("com.example.app.share")])) == [5])
            #expect(try numbers(store, HistoryQuery(processIDs: [.value("Widget")])) == [2])
            #expect(try numbers(store, HistoryQuery(entities: ["Media"])) == [])
            #expect(try numbers(store, HistoryQuery(entities: ["Media"], includeSubentities: true)) == [3, 6])
            #expect(
                try numbers(store, HistoryQuery(entities: ["Book"], includeSubentities: true, changeTypes: [.delete]))
                    == [4])
            #expect(
                throws: StoreQueryError(
                    path: store.path, .unknownEntity(name: "Nope", known: store.catalog.entities.map(\.name)))
            ) {
                try numbers(store, HistoryQuery(entities: ["Nope"]))
            }
            #expect(try numbers(store, HistoryQuery(limit: 2)) == [1, 2])
            #expect(try numbers(store, HistoryQuery(limit: 2, order: .descending)) == [6, 5])
            #expect(try numbers(store, HistoryQuery(after: .transaction(1), authors: [.value("app")], limit: 1)) == [4])
            #expect(try store.transaction(number: 3)?.number == 3)
            #expect(try store.transaction(number: 99) == nil)

            var changeIDs: [Int64] = []
            let decoder = store.makeDecoder(model: try store.resolveModel())
            try store.forEachChange(HistoryQuery(authors: [.value("app")], changeTypes: [.insert]), decoder: decoder) {
                changeIDs.append($0.changeID)
            }
            #expect(changeIDs == [1, 2, 3, 11])
            var typed: [ChangeType] = []
            try store.forEachChange(
                HistoryQuery(entities: ["Book"], includeSubentities: true, order: .descending), decoder: decoder
            ) { typed.append($0.changeType) }
            #expect(typed == [.update, .insert, .delete, .update, .insert, .insert])
            var exported: [(Int64, [Int64])] = []
            try store.forEachTransactionWithChanges(HistoryQuery(changeTypes: [.update]), decoder: decoder) {
                tx, changes in
                var ids: [Int64] = []
                try changes.forEach { ids.append($0.changeID) }
                exported.append((tx.number, ids))
            }
            #expect(exported.map(\.0) == [2, 3, 5])
            #expect(exported.map(\.1) == [[4], [6], [10]])
        }
    }

    @Test func changesDecodeNamesObjectIDsAndTombstones() throws {
        try withStore { store in
            let decoder = store.makeDecoder(model: try store.resolveModel())
            let update = try #require(try store.changes(inTransaction: 2, decoder: decoder).first)
            #expect(update.changeType == .update)
            #expect(update.entityName == "Book")
            #expect(update.changedObjectID == "x-coredata://\(LibraryModel.storeUUID)/Book/p1")
            #expect(update.updatedProperties == ["shelf", "title"])
            #expect(update.updatedSlots == [2, 7])
            #expect(update.rawColumns == [0x21, 0x00])
            #expect(update.warnings.isEmpty)

            let tag = try store.changes(inTransaction: 3, decoder: decoder)[1]
            #expect(tag.updatedProperties == ["Zeta", "books"])

            let deletes = try store.changes(inTransaction: 4, decoder: decoder)
            #expect(deletes[0].entityName == "EBook")
            #expect(deletes[0].tombstone.map(\.name) == ["isbn", "title"])
            #expect(deletes[0].tombstone.map(\.value) == [.text("978-0"), .text("Dune")])
            #expect(deletes[0].tombstone.first?.attributeType == .string)
            #expect(
                deletes[1].tombstone == [
                    TombstoneEntry(name: "uuid", value: .blob([0xAB, 0xCD]), attributeType: .uuid)
                ])
            #expect(deletes.allSatisfy { $0.warnings.isEmpty && $0.updatedProperties == nil })

            let ebookUpdate = try store.changes(inTransaction: 5, decoder: decoder)[1]
            #expect(ebookUpdate.updatedProperties == ["cover", "fileSize"])
        }
    }

    @Test func imperfectRowsBecomeWarningsWithRawData() throws {
        var fixture = LibraryModel.fixture()
        fixture.transactions.append(
            .init(
                timestamp: LibraryModel.t0 + 9000, author: "app",
                changes: [
                    // 2 bytes, 1 expected
                    .init(entity: "Author", primaryKey: 9, type: .update, rawColumns: [0x80, 0x00]),
                    .init(entity: "Author", primaryKey: 9, type: .update, rawColumns: [0x41]),  // bit 6 of 3 slots
                    .init(entity: "Author", primaryKey: 9, type: .insert, rawEntityNumber: 77),  // unknown ZENTITY
                    .init(entity: "Author", primaryKey: 9, type: .update, rawColumns: nil, rawEntityNumber: nil),
                ]))
        try withStore(fixture) { store in
            let decoder = store.makeDecoder(model: try store.resolveModel())
            let rows = try store.changes(inTransaction: 7, decoder: decoder)
            #expect(rows[0].warnings.map(\.kind) == [.columnsLengthMismatch])
            #expect(rows[0].warnings[0].rawHex == "8000")
            #expect(rows[0].updatedProperties == ["name"])
            #expect(rows[1].warnings.map(\.kind) == [.bitPastLastSlot])
            #expect(rows[1].warnings[0].rawHex == "41")
            #expect(rows[1].updatedProperties == ["uuid"])
            #expect(rows[1].updatedSlots == [1, 7])
            #expect(rows[2].warnings.map(\.kind) == [.unknownEntity])
            #expect(rows[2].entityName == nil && rows[2].changedObjectID == nil)
            // An update written without a model layout: computed columns exist, so none missing here.
            #expect(rows[3].warnings.isEmpty)
        }
    }

    @Test func withoutAModelSlotsAndTombstonesAreKeptRaw() throws {
        try withStore(LibraryModel.fixture(writesModelCache: false)) { store in
            let resolution = try store.resolveModel()
            #expect(resolution.model == nil)
            #expect(
                resolution.problem?.description.contains("no model cache") == true
                    && resolution.problem?.controls == [.model])
            let decoder = store.makeDecoder(model: resolution)
            let update = try store.changes(inTransaction: 2, decoder: decoder)[0]
            #expect(update.entityName == "Book")
            #expect(update.updatedProperties == nil)
            #expect(update.updatedSlots == [2, 7])
            #expect(update.warnings.map(\.kind) == [.noModel])
            #expect(update.warnings[0].rawHex == "2100")
            let delete = try store.changes(inTransaction: 4, decoder: decoder)[0]
            #expect(delete.tombstone.map(\.name) == ["ZTOMBSTONE0", "ZTOMBSTONE1"])
            #expect(delete.warnings.map(\.kind) == [.unnamedTombstone])

            // A user-given model fixes it.
            let dir = try TemporaryDirectory()
            let mom = dir.file("Library.mom")
            try Data(BinaryPlistWriter.encode(ModelArchiveEncoder.archive(LibraryModel.model))).write(
                to: URL(fileURLWithPath: mom))
            let given = try store.resolveModel(userModelPath: mom)
            #expect(given.source == .file(path: mom, resolved: mom))
            let fixed = try store.changes(inTransaction: 2, decoder: store.makeDecoder(model: given))[0]
            #expect(fixed.updatedProperties == ["shelf", "title"])
        }
    }

    @Test func corruptModelCacheIsReportedPerChange() throws {
        let dir = try TemporaryDirectory()
        let path = try LibraryModel.write(LibraryModel.fixture(journalMode: .rollback), in: dir)
        let q = try GRDBHelper.open(path)
        try q.write { try $0.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = x'deadbeef'") }
        try q.close()
        let store = try HistoryStore.open(path)
        let resolution = try store.resolveModel()
        #expect(resolution.model == nil)
        #expect(resolution.problem?.description.hasPrefix("\(path): Z_MODELCACHE: model cannot be decoded") == true)
        let update = try store.changes(inTransaction: 2, decoder: store.makeDecoder(model: resolution))[0]
        #expect(update.warnings.first?.message.description.contains("Z_MODELCACHE") == true)
    }

    @Test func fewerTombstoneColumnsThanPreservedAttributes() throws {
        try withStore(LibraryModel.fixture(tombstoneColumns: 1)) { store in
            let decoder = store.makeDecoder(model: try store.resolveModel())
            let delete = try store.changes(inTransaction: 4, decoder: decoder)[0]
            #expect(delete.tombstone.map(\.name) == ["isbn"])
            #expect(delete.warnings.map(\.kind) == [.tombstoneColumnsMissing])
        }
    }
}

enum GRDBHelper {
    static func open(_ path: String) throws -> DatabaseQueue { try DatabaseQueue(path: path) }
}

extension HistoryStore {
    /// The decoded changes of transaction `number`, by change ID, from one read (as `show` reads them).
    fileprivate func changes(inTransaction number: Int64, decoder: ChangeDecoder) throws -> [Change] {
        var changes: [Change] = []
        let bounds = HistoryQuery.Bound.around(number...number)
        try readTransactions(HistoryQuery(after: bounds.after, before: bounds.before), decoder: decoder) {
            try $0.forEach { _, stream in try stream.forEach { changes.append($0) } }
        }
        return changes
    }
}
