import GRDB

extension HistoryDiff {
    /// Compares the history of `old` and `new` (two snapshots of one store) as
    /// far as `query` selects (its bounds, names, entities, types, objects):
    /// both read in step by transaction number, each transaction's changes
    /// compared one by one, so nothing but the counts is held. `progress` is
    /// told of each transaction number read and returns false to stop
    /// (``HistoryDiffError/stopped`` is thrown then).
    public static func compare(old: HistoryStore, oldDecoder: ChangeDecoder, new: HistoryStore, newDecoder: ChangeDecoder,
                               query: HistoryQuery = HistoryQuery(), progress: (Int64) -> Bool = { _ in true }) throws -> HistoryDiff {
        var diff = HistoryDiff(oldStoreUUID: old.storeUUID, newStoreUUID: new.storeUUID)
        /// The runs of consecutive added transactions, for their net effect.
        var addedRuns: [ClosedRange<Int64>] = []
        try old.read { oldDB in
            try new.read { newDB in
                let a = try TransactionStream(old, query: query, decoder: oldDecoder, db: oldDB)
                defer { a.finish() }
                let b = try TransactionStream(new, query: query, decoder: newDecoder, db: newDB)
                defer { b.finish() }
                var x = try a.next(), y = try b.next()
                var lastWasAdded = false
                while x != nil || y != nil {
                    guard progress(min(x?.number ?? .max, y?.number ?? .max)) else { throw HistoryDiffError.stopped }
                    if let tx = x, y.map({ tx.number < $0.number }) ?? true {
                        diff.removed.add(tx)
                        while let change = try a.nextChange() { diff.removed.add(change, of: tx) }
                        x = try a.next()
                        lastWasAdded = false
                    } else if let tx = y, x.map({ tx.number < $0.number }) ?? true {
                        diff.added.add(tx)
                        while let change = try b.nextChange() { diff.added.add(change, of: tx) }
                        if lastWasAdded, let run = addedRuns.popLast() {
                            // A damaged store can return numbers out of order: the run still holds both ends.
                            addedRuns.append(Swift.min(run.lowerBound, tx.number)...Swift.max(run.upperBound, tx.number))
                        } else {
                            addedRuns.append(tx.number...tx.number)
                        }
                        lastWasAdded = true
                        y = try b.next()
                    } else if let before = x, let after = y {
                        var part = Part()
                        part.add(after)
                        var same = sameContent(before, after)
                        while true {
                            let (c1, c2) = (try a.nextChange(), try b.nextChange())
                            if c1 == nil && c2 == nil { break }
                            if let c2 { part.add(c2, of: after) }
                            if same, let c1, let c2, sameContent(c1, c2) { continue }
                            same = false
                        }
                        if same { diff.unchanged.merge(part) } else { diff.rewritten.merge(part) }
                        x = try a.next()
                        y = try b.next()
                        lastWasAdded = false
                    }
                }
                diff.effects = try effects(of: addedRuns, in: new, decoder: newDecoder, sql: b.sql, db: newDB)
            }
        }
        return diff
    }

    /// What Core Data records of a save, compared: its time and names.
    private static func sameContent(_ a: Transaction, _ b: Transaction) -> Bool {
        a.timestamp?.bitPattern == b.timestamp?.bitPattern && a.author == b.author && a.contextName == b.contextName
            && a.bundleID == b.bundleID && a.processID == b.processID
    }

    /// A change compared by its number, type, entity (by name: a migration may renumber entities),
    /// object, updated columns and tombstone values.
    private static func sameContent(_ a: Change, _ b: Change) -> Bool {
        a.changeID == b.changeID && a.changeType == b.changeType && a.entityPK == b.entityPK
            && (a.entityName ?? "#\(a.entityNumber)") == (b.entityName ?? "#\(b.entityNumber)")
            && a.rawColumns == b.rawColumns && a.tombstone.map(\.value) == b.tombstone.map(\.value)
    }

    /// The net effect of the transactions in `runs` on each object they changed,
    /// read by object from a sort SQLite makes (no map of objects in memory).
    /// `sql` is the new store's query (its stream's, in the same read).
    private static func effects(of runs: [ClosedRange<Int64>], in store: HistoryStore, decoder: ChangeDecoder,
                                sql: HistorySQL, db: Database) throws -> [EntityEffect] {
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
                let names = decoder.layout(forEntity: run.entity)?.propertyNames(forSlots: slots) ?? slots.map { "slot \($0)" }
                for name in names { properties[run.entity, default: [:]][name, default: 0] += 1 }
            }
            effects[run.entity] = effect
        }
        let cursor = try RawCursor(db.makeStatement(sql: sql.changesByObjectSelect(low: low, high: high)), arguments: sql.arguments)
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
                    if mask.count > run.mask.count { current?.mask += [UInt8](repeating: 0, count: mask.count - run.mask.count) }
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
            effect.properties = (properties[entry.key] ?? [:]).map { EntityEffect.PropertyCount(name: $0.key, objects: $0.value) }
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

/// Why a comparison ended early.
public enum HistoryDiffError: Error, Equatable, Sendable {
    /// The caller's progress said stop (Ctrl-C).
    case stopped
}
