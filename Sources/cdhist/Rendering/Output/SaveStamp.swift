import HistoryKit

/// What every output of a command run on a store as it was after a save says first, so that it
/// cannot be taken for the store as it is: which save of how many, the newest transaction then,
/// and whether that state is exact. A table's first line, a JSON document's `atSave` member,
/// NDJSON's first line (kind `atSave`) and CSV's first column carry the same.
struct SaveStamp {
    let point: SavePoint
    /// The newest history transaction at that save (nil: none).
    let newestTransaction: Int64?

    /// The stamp of `store` when it is read at a save; nil when it is read as it is.
    static func of(_ store: HistoryStore) throws -> SaveStamp? {
        guard let point = store.savePoint else { return nil }
        let newest = try store.numberBounds().transaction
        return SaveStamp(point: point, newestTransaction: newest > 0 ? newest : nil)
    }

    /// `At save 3 of 15, after #272: exact`, or `…: partial: why`.
    var sentence: String { "At " + description }

    /// `save 3 of 15, after #272: exact` (a CSV cell).
    var description: String {
        let after = newestTransaction.map { "after #\($0)" } ?? "before any history transaction"
        return "save \(point.save) of \(point.of), \(after): " + (point.why.map { "partial: \($0)" } ?? "exact")
    }

    /// The `atSave` member's value.
    var json: JSONValue {
        .object([
            ("save", .int(Int64(point.save))), ("of", .int(Int64(point.of))),
            ("newestTransaction", newestTransaction.map { .int($0) } ?? .null),
            ("exact", .bool(point.exact)), ("why", .optional(point.why)),
        ])
    }

    /// NDJSON's first line.
    var ndjsonLine: [UInt8] {
        var bytes: [UInt8] = []
        JSONValue.object([("format", .string(jsonFormatTag)), ("kind", .string("atSave")), ("atSave", json)]).write(
            to: &bytes)
        bytes.append(0x0A)
        return bytes
    }
}
