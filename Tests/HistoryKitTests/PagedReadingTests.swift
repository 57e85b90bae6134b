import Foundation
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryReading

/// Reading a page at a time (what `watch` does, so it holds no read while it writes) hands
/// out exactly what one read does, whatever the page size and filters.
@Suite struct PagedReadingTests {
    static var stores: [String] {
        [Repository.fixtures + "/AppGroup/Tasks.sqlite"]
            + (RealStores.available ? [RealStores.photos, RealStores.photos15, RealStores.swiftData] : [])
    }

    /// Each transaction's number, changes and every decoded change (its description), in order.
    private static func read(_ walk: ((Transaction, ChangeStream) throws -> Void) throws -> Void) throws -> [String] {
        var lines: [String] = []
        try walk { tx, changes in
            lines.append("#\(tx.number) \(tx.changeCount) \(tx.author ?? "-")")
            try changes.forEach {
                lines.append(
                    """
                      \($0.changeID) \($0.changeType) \($0.entityNumber)/\($0.entityPK) \
                    \($0.updatedProperties ?? []) \($0.tombstone)
                    """
                )
            }
        }
        return lines
    }

    @Test(arguments: stores) func pagesHandOutWhatOneReadDoes(store path: String) throws {
        let store = try HistoryStore.open(path)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        var firstObject: ObjectReference?
        try store.forEachChange(HistoryQuery(limit: 1), decoder: decoder) { change in
            firstObject = change.entityName.map { ObjectReference(entityName: $0, primaryKey: change.entityPK) }
        }
        let entity = store.catalog.entities.first { $0.name == firstObject?.entityName }?.name
        var queries = [HistoryQuery(), HistoryQuery(changeTypes: [.delete]), HistoryQuery(after: .transaction(3))]
        if let entity { queries.append(HistoryQuery(entities: [entity])) }
        if let firstObject { queries.append(HistoryQuery(objects: [firstObject])) }
        for query in queries {
            let whole = try Self.read { try store.forEachTransactionWithChanges(query, decoder: decoder, $0) }
            #expect(!whole.isEmpty || query.changeTypes == [.delete], "\(path): \(query) selects nothing")
            // Pages smaller than the transactions and their changes, and the default.
            for size in [1, 2, 7, HistoryStore.pageSize] {
                let paged = try Self.read {
                    try store.forEachTransactionWithChangesInPages(query, decoder: decoder, pageSize: size, $0)
                }
                #expect(
                    paged == whole, "\(path): \(query), pages of \(size): \(paged.count) lines, one read \(whole.count)"
                )
            }
        }
    }
}
