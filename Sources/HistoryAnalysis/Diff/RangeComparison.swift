import GRDB
import HistoryReading

extension HistoryDiff {
    /// One range of transaction numbers of two stores, compared: a part of
    /// ``compare(old:oldDecoder:new:newDecoder:query:progress:)``, ranges added in order.
    struct RangeComparison {
        var removed = Part()
        var added = Part()
        var rewritten = Part()
        var unchanged = Counts()
        /// The runs of consecutive added transactions, for their net effect.
        var addedRuns: [ClosedRange<Int64>] = []

        /// Adds `other`, the range after this one's.
        mutating func merge(_ other: RangeComparison) {
            removed.merge(other.removed)
            added.merge(other.added)
            rewritten.merge(other.rewritten)
            unchanged.transactions += other.unchanged.transactions
            unchanged.changes += other.unchanged.changes
            addedRuns += other.addedRuns
        }
    }

    /// Compares the transactions `a` (old) and `b` (new) read, in step by number, row by row
    /// in place: no change is decoded. A change's entities are tallied by name for the parts.
    static func compare(_ a: TransactionStream, _ b: TransactionStream, entities: EntityMatch) throws -> RangeComparison
    {
        var result = RangeComparison()
        var removedEntities: [Int64: Int] = [:]
        var addedEntities: [Int64: Int] = [:]
        var rewrittenEntities: [Int64: Int] = [:]
        var afterEntities: [Int64] = []
        var x = try a.next()
        var y = try b.next()
        var lastWasAdded = false
        while x != nil || y != nil {
            if let tx = x, y.map({ tx.number < $0.number }) ?? true {
                var count = 0
                while let row = try a.nextRow() {
                    count += 1
                    removedEntities[row.int64(3), default: 0] += 1
                }
                result.removed.add(tx, changes: count)
                x = try a.next()
                lastWasAdded = false
            } else if let tx = y, x.map({ tx.number < $0.number }) ?? true {
                var count = 0
                while let row = try b.nextRow() {
                    count += 1
                    addedEntities[row.int64(3), default: 0] += 1
                }
                result.added.add(tx, changes: count)
                if lastWasAdded, let run = result.addedRuns.popLast() {
                    // A damaged store can return numbers out of order: the run still holds both ends.
                    result.addedRuns.append(Swift.min(run.lowerBound, tx.number)...Swift.max(run.upperBound, tx.number))
                } else {
                    result.addedRuns.append(tx.number...tx.number)
                }
                lastWasAdded = true
                y = try b.next()
            } else if let before = x, let after = y {
                var same = sameContent(before, after)
                afterEntities.removeAll(keepingCapacity: true)
                while true {
                    let (r1, r2) = (try a.nextRow(), try b.nextRow())
                    if r1 == nil && r2 == nil { break }
                    if let r2 { afterEntities.append(r2.int64(3)) }
                    if same, let r1, let r2, sameContent(r1, r2, entities: entities) { continue }
                    same = false
                }
                if same {
                    result.unchanged.transactions += 1
                    result.unchanged.changes += afterEntities.count
                } else {
                    result.rewritten.add(after, changes: afterEntities.count)
                    for entity in afterEntities { rewrittenEntities[entity, default: 0] += 1 }
                }
                x = try a.next()
                y = try b.next()
                lastWasAdded = false
            }
        }
        for (entity, count) in removedEntities { result.removed.add(changes: count, of: entities.oldName(entity)) }
        for (entity, count) in addedEntities { result.added.add(changes: count, of: entities.newName(entity)) }
        for (entity, count) in rewrittenEntities { result.rewritten.add(changes: count, of: entities.newName(entity)) }
        return result
    }

    /// What Core Data records of a save, compared: its time and names.
    private static func sameContent(_ a: Transaction, _ b: Transaction) -> Bool {
        a.timestamp?.bitPattern == b.timestamp?.bitPattern && a.author == b.author && a.contextName == b.contextName
            && a.bundleID == b.bundleID && a.processID == b.processID
    }

    /// Two change rows compared by number, type, entity (by name: a migration may renumber
    /// entities), object, updated columns and tombstone columns, each value by its SQLite type
    /// and bytes (a tombstone column one store lacks counts as NULL).
    private static func sameContent(_ a: RawCursor, _ b: RawCursor, entities: EntityMatch) -> Bool {
        guard a.holdsSame(0, as: b, 0), a.holdsSame(2, as: b, 2), a.holdsSame(4, as: b, 4), a.holdsSame(5, as: b, 5)
        else { return false }
        if a.storageClass(3) == .integer && b.storageClass(3) == .integer {
            guard entities.same(a.int64(3), b.int64(3)) else { return false }
        } else if !a.holdsSame(3, as: b, 3) {
            return false
        }
        let (na, nb) = (a.columnCount, b.columnCount)
        var column = Int32(HistorySQL.changeFixedColumnCount)
        while column < max(na, nb) {
            if column < na && column < nb {
                guard a.holdsSame(column, as: b, column) else { return false }
            } else if (column < na && !a.isNull(column)) || (column < nb && !b.isNull(column)) {
                return false
            }
            column += 1
        }
        return true
    }

    /// The entities of the old and the new store's decoders, matched by name (a migration may
    /// renumber them); a number neither knows matches only itself.
    struct EntityMatch {
        private let old: ChangeDecoder
        private let new: ChangeDecoder
        /// Every number names the same entity in both (copies of one store): numbers are compared.
        private let sameNumbers: Bool

        init(old: ChangeDecoder, new: ChangeDecoder) {
            self.old = old
            self.new = new
            func numbering(_ decoder: ChangeDecoder) -> [Int64: String] {
                Dictionary(decoder.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
            }
            sameNumbers = numbering(old) == numbering(new)
        }

        func same(_ a: Int64, _ b: Int64) -> Bool {
            sameNumbers ? a == b : (old.entityName(a) ?? "#\(a)") == (new.entityName(b) ?? "#\(b)")
        }

        /// Entity `number`'s name in the old store, as a part tallies it.
        func oldName(_ number: Int64) -> String { old.entityName(number) ?? "Z_ENT \(number)" }

        func newName(_ number: Int64) -> String { new.entityName(number) ?? "Z_ENT \(number)" }
    }
}
