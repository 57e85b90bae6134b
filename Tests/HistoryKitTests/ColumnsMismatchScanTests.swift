import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// The grouped scan finds exactly the updates whose decoding warns that ZCOLUMNS do not fit.
@Suite struct ColumnsMismatchScanTests {
    /// What decoding every update finds (the rule's former way).
    private func decoded(_ store: HistoryStore, _ decoder: ChangeDecoder) throws -> ColumnsMismatches {
        var result = ColumnsMismatches()
        try store.forEachChange(HistoryQuery(changeTypes: [.update]), decoder: decoder) { change in
            guard change.warnings.contains(where: { $0.kind == .columnsLengthMismatch || $0.kind == .bitPastLastSlot })
            else { return }
            result.count += 1
            result.firstChangeID = result.firstChangeID ?? change.changeID
            result.entities.insert(change.entityName ?? "?")
        }
        return result
    }

    private func expectAgreement(_ path: String) throws -> ColumnsMismatches {
        let store = try HistoryStore.open(path)
        let decoder = store.makeDecoder(model: try store.resolveModel())
        let expected = try decoded(store, decoder)
        #expect(try store.columnsMismatches(decoder) == expected, "\(path)")
        #expect(try store.columnsMismatches(decoder, parallelFrom: 0) == expected, "\(path), split")
        return expected
    }

    @Test(arguments: FieldSummaryTests.stores) func agreesWithDecoding(store: String) throws {
        _ = try expectAgreement(store)
    }

    /// Masks too long, too short, empty, with a bit past the last slot, of a subentity, and of an unknown entity.
    @Test func damagedMasks() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Odd.sqlite")
        let decoder = try HistoryStore.open(Repository.fixtures + "/AppGroup/Tasks.sqlite").makeDecoder(
            model: ModelResolution(model: Scenarios.tasksModel, source: nil, problem: nil))
        var changes: [FixtureStore.Change] = []
        var pk: Int64 = 1
        for entity in ["Task", "Project", "Photo", "Document", "Tag", "Person"] {
            let number = try #require(Scenarios.tasksModel.entities.firstIndex { $0.name == entity }).advanced(by: 1)
            let length = try #require(decoder.layout(forEntity: Int64(number))).byteLength
            for mask in [
                [UInt8](repeating: 0xFF, count: length), [0x80] + [UInt8](repeating: 0, count: max(0, length - 1)),
                [UInt8](repeating: 0x01, count: length + 1), [], [UInt8](repeating: 0x40, count: max(1, length - 1)),
            ] {
                changes.append(.init(entity: entity, primaryKey: pk, type: .update, rawColumns: mask))
                pk += 1
            }
        }
        changes.append(
            .init(
                entity: "Task", primaryKey: pk, type: .update, rawColumns: [0xFF, 0xFF, 0xFF, 0xFF], rawEntityNumber: 99
            ))
        let fixture = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .rollback,
            transactions: [
                .init(timestamp: Scenarios.baseTime, author: "app", contextName: "c", changes: changes)
            ])
        try StoreWriter.write(fixture, to: path)
        let found = try expectAgreement(path)
        #expect(found.count >= 12 && found.entities.count == 6, "\(found)")
    }
}
