import Foundation
import GRDB
import HistoryReading

extension HistoryDiff {
    /// Compares the history of `old` and `new` (two snapshots of one store) as
    /// far as `query` selects (its bounds, names, entities, types, objects):
    /// both read in step by transaction number, range by range on one pair of
    /// connections per core, each transaction's change rows compared in place, so
    /// nothing but the counts is held. Transactions committed after the comparison
    /// began are left out. `progress` is told, in order, the last number of each
    /// range compared and returns false to stop (``HistoryDiffError/stopped`` is
    /// thrown then).
    public static func compare(
        old: HistoryStore, oldDecoder: ChangeDecoder, new: HistoryStore, newDecoder: ChangeDecoder,
        query: HistoryQuery = HistoryQuery(), progress: (Int64) -> Bool = { _ in true }
    ) throws -> HistoryDiff {
        var query = query
        query.limit = nil
        query.order = .ascending
        var diff = HistoryDiff(oldStoreUUID: old.storeUUID, newStoreUUID: new.storeUUID)
        let (oldSQL, oldSpan) = try old.read { db in (try old.historySQL(query, in: db), try old.numberSpan(query, db))
        }
        let (newSQL, newSpan) = try new.read { db in (try new.historySQL(query, in: db), try new.numberSpan(query, db))
        }
        guard let low = [oldSpan?.lowerBound, newSpan?.lowerBound].compactMap({ $0 }).min(),
            let high = [oldSpan?.upperBound, newSpan?.upperBound].compactMap({ $0 }).max()
        else { return diff }
        let cores = Cores.usable
        let ranges = (cores > 1 ? HistoryStore.chunks(of: low...high) : nil) ?? [low...high]
        let entities = EntityMatch(old: oldDecoder, new: newDecoder)
        let queue = ChunkQueue(count: ranges.count)
        let total = try withoutActuallyEscaping(progress) { progress in
            let merger = RangeMerger { progress(ranges[$0].upperBound) }
            _ = try old.connection.readInParallel(min(cores, ranges.count), pairedWith: new.connection) {
                oldDB, newDB, _ in
                let (oldStatements, newStatements) = (
                    try TransactionStream.Statements(old, oldSQL, oldDB),
                    try TransactionStream.Statements(new, newSQL, newDB)
                )
                while let i = queue.take() {
                    let a = try TransactionStream(old, sql: oldSQL, statements: oldStatements, numbers: ranges[i])
                    defer { a.finish() }
                    let b = try TransactionStream(new, sql: newSQL, statements: newStatements, numbers: ranges[i])
                    defer { b.finish() }
                    let range: RangeComparison
                    do {
                        range = try compare(a, b, entities: entities)
                    } catch {
                        queue.stop()
                        throw error
                    }
                    guard merger.add(range, at: i) else {
                        queue.stop()
                        throw HistoryDiffError.stopped
                    }
                }
            }
            return merger.total
        }
        diff.removed = total.removed
        diff.added = total.added
        diff.rewritten = total.rewritten
        diff.unchanged = total.unchanged
        diff.effects = try new.read { db in
            try effects(of: total.addedRuns, in: new, decoder: newDecoder, sql: newSQL, db: db)
        }
        return diff
    }

    /// The net effect of the transactions in `runs` on each object they changed,
    /// read by object from a sort SQLite makes (no map of objects in memory).
    /// `sql` is the new store's query (as its ranges were read with).
    private static func effects(
        of runs: [ClosedRange<Int64>], in store: HistoryStore, decoder: ChangeDecoder,
        sql: HistorySQL, db: Database
    ) throws -> [EntityEffect] {
        guard let low = runs.first?.lowerBound, let high = runs.last?.upperBound else { return [] }
        var effects: [Int64: EntityEffect] = [:]
        var properties: [Int64: [String: Int]] = [:]
        var current: (entity: Int64, key: Int64, first: ChangeType, last: ChangeType, mask: [UInt8])?
        func close() {
            guard let run = current else { return }
            let name = store.catalog.entity(number: run.entity)?.name ?? "Z_ENT \(run.entity)"
            var effect = effects[run.entity] ?? EntityEffect(entity: name)
            switch (run.first, run.last) {
            case (.insert, .delete): effect.insertedAndDeleted += 1
            case (.insert, _): effect.inserted += 1
            case (_, .delete): effect.deleted += 1
            default:
                effect.updated += 1
                let slots = ChangeDecoder.slots(in: run.mask)
                let names =
                    decoder.layout(forEntity: run.entity)?.propertyNames(forSlots: slots) ?? slots.map { "slot \($0)" }
                for name in names { properties[run.entity, default: [:]][name, default: 0] += 1 }
            }
            effects[run.entity] = effect
        }
        let cursor = try RawCursor(
            db.makeStatement(sql: sql.changesByObjectSelect(low: low, high: high)), arguments: sql.arguments)
        defer { cursor.finish() }
        while try cursor.next() {
            // Only the added transactions (other transactions may lie between runs).
            let number = cursor.int64(4)
            guard Self.contains(runs, number) else { continue }
            let (entity, key) = (cursor.int64(0), cursor.int64(1))
            let type = ChangeType(rawValue: cursor.int64(2))
            let mask = type == .update ? cursor.optionalBytes(3) ?? [] : []
            if let run = current, run.entity == entity, run.key == key {
                current?.last = type
                if !mask.isEmpty {
                    if mask.count > run.mask.count {
                        current?.mask += [UInt8](repeating: 0, count: mask.count - run.mask.count)
                    }
                    for (i, byte) in mask.enumerated() { current?.mask[i] |= byte }
                }
            } else {
                close()
                current = (entity, key, type, type, mask)
            }
        }
        close()
        return effects.sorted { $0.key < $1.key }.map { entry in
            var effect = entry.value
            effect.properties = (properties[entry.key] ?? [:]).map {
                EntityEffect.PropertyCount(name: $0.key, objects: $0.value)
            }
            .sorted { ($0.objects, $1.name) > ($1.objects, $0.name) }
            return effect
        }
    }

    /// Whether `number` is in one of `runs` (ascending, apart).
    private static func contains(_ runs: [ClosedRange<Int64>], _ number: Int64) -> Bool {
        var (low, high) = (0, runs.count - 1)
        while low <= high {
            let mid = (low + high) / 2
            if runs[mid].contains(number) { return true }
            if number < runs[mid].lowerBound { high = mid - 1 } else { low = mid + 1 }
        }
        return false
    }
}

/// The ranges of a comparison added up in order as threads finish them (a range
/// finished early waits for those before it).
// Unchecked Sendable: what waits to be added up, the next range and the stop are all under `lock`.
private final class RangeMerger: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Int: HistoryDiff.RangeComparison] = [:]
    private var next = 0
    private var stopped = false
    private let done: (Int) -> Bool
    private(set) var total = HistoryDiff.RangeComparison()

    /// `done` is told each range's index once it and every earlier one are added (under
    /// the lock, in order) and returns false to stop.
    init(done: @escaping (Int) -> Bool) {
        self.done = done
    }

    /// Adds range `index`; false once the comparison is to stop.
    func add(_ range: HistoryDiff.RangeComparison, at index: Int) -> Bool {
        lock.withLock {
            pending[index] = range
            while !stopped, let ready = pending.removeValue(forKey: next) {
                total.merge(ready)
                stopped = !done(next)
                next += 1
            }
            return !stopped
        }
    }
}

/// Why a comparison ended early.
public enum HistoryDiffError: Error, Equatable, Sendable {
    /// The caller's progress said stop (Ctrl-C).
    case stopped
}
