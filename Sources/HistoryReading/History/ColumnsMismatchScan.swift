import GRDB

/// Updates whose `ZCOLUMNS` do not fit their entity's slot layout: a length other than the
/// layout's, or a bit set past its last slot (what ``ChangeDecoder`` warns of as
/// `columnsLengthMismatch` and `bitPastLastSlot`).
public struct ColumnsMismatches: Equatable, Sendable {
    public var count = 0
    public var firstChangeID: Int64?
    /// The entities' names.
    public var entities: Set<String> = []
}

extension HistoryStore {
    /// The updates ``ChangeDecoder`` would find not fitting `decoder`'s layouts, without decoding
    /// them: whether a mask fits depends only on its entity, its length and its last byte (a bit
    /// past the last slot can only be in the last byte of a mask of the right length), so the
    /// updates are tallied by those three (in Swift: SQLite's GROUP BY would sort every row) and
    /// only the tallies are judged. Split over the cores by change number.
    public func columnsMismatches(_ decoder: ChangeDecoder) throws -> ColumnsMismatches {
        try columnsMismatches(decoder, parallelFrom: Self.parallelSummaryMinimum)
    }

    func columnsMismatches(_ decoder: ChangeDecoder, parallelFrom: Int64) throws -> ColumnsMismatches {
        // Only BLOB masks are decoded (a TEXT one is reported as a value of the wrong type).
        let select = """
            SELECT ZENTITY, ZCOLUMNS, Z_PK FROM ACHANGE
            WHERE ZCHANGETYPE = 1 AND typeof(ZCOLUMNS) = 'blob' AND typeof(ZENTITY) = 'integer' AND Z_PK BETWEEN ? AND ?
            """
        return try read { db in
            let parts = try readInParts(of: "ACHANGE", db, parallelFrom: parallelFrom) { db, range in
                var tallies: [MaskShape: MaskTally] = [:]
                try db.forEachRow(select, arguments: [range.lowerBound, range.upperBound]) { row in
                    let (length, lastByte) = row.blobLengthAndLastByte(1)
                    let shape = MaskShape(entity: row.int64(0), length: length, lastByte: lastByte)
                    let change = row.int64(2)
                    if let i = tallies.index(forKey: shape) {
                        tallies.values[i].add(change)
                    } else {
                        tallies[shape] = MaskTally(count: 1, firstChange: change)
                    }
                }
                return tallies
            }
            var result = ColumnsMismatches()
            var all: [MaskShape: MaskTally] = [:]
            for part in parts ?? [] { all.merge(part) { $0.merged(with: $1) } }
            for (shape, t) in all {
                guard let layout = decoder.layout(forEntity: shape.entity), shape.misfits(layout) else { continue }
                result.count += t.count
                result.firstChangeID = min(result.firstChangeID ?? t.firstChange, t.firstChange)
                result.entities.insert(decoder.entityName(shape.entity) ?? "?")
            }
            return result
        }
    }
}

/// How many updates have one mask shape, and the first of them.
private struct MaskTally {
    var count: Int
    var firstChange: Int64

    mutating func add(_ change: Int64) {
        count += 1
        firstChange = min(firstChange, change)
    }

    func merged(with other: MaskTally) -> MaskTally {
        MaskTally(count: count + other.count, firstChange: min(firstChange, other.firstChange))
    }
}

/// The masks of one entity with one length and one last byte.
private struct MaskShape: Hashable {
    var entity: Int64
    var length: Int
    /// nil for an empty mask.
    var lastByte: UInt8?

    func misfits(_ layout: SlotLayout) -> Bool { !layout.fits(length: length, lastByte: lastByte) }
}
