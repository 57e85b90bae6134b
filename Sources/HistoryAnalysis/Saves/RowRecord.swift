import HistoryReading

/// The record of a table row: assembled from its page and its overflow pages, and read into
/// columns as SQLite's record format stores them.
enum RowRecord {
    /// The largest record assembled (larger ones are damage, or far beyond what a Core Data row holds).
    static let limit = 256 << 20
    /// The most columns a record has (SQLite's own limit).
    static let columnLimit = 32767

    /// The whole record of `row` on `page`, its overflow pages read from `reader`'s state; nil
    /// when a page of the chain is missing, loops, was already claimed by another record of the
    /// same walk (`claimed`: an overflow page belongs to one record), or the record is larger than
    /// ``limit`` or than the files.
    static func payload(_ row: BTreePage.Row, on page: BTreePage, reader: PageReader, claimed: inout Set<UInt32>)
        -> [UInt8]?
    {
        guard row.payloadSize <= min(limit, reader.fileBytes) else { return nil }
        var payload = Array(page.bytes[row.local])
        guard var next = row.overflow else { return payload }
        let chunk = reader.usableSize - 4
        while payload.count < row.payloadSize {
            guard next != 0, claimed.insert(next).inserted, let bytes = reader.page(next), chunk > 0 else { return nil }
            let take = min(chunk, row.payloadSize - payload.count)
            payload += bytes[4..<(4 + take)]
            next = BTreePage.u32(bytes, 0) ?? 0
        }
        return payload
    }

    /// The columns of `record`: nil for NULL (and for a column past the record's end). A record
    /// that does not read ends where it stops making sense.
    static func columns(_ record: [UInt8]) -> [StoredValue?] {
        var at = 0
        guard let headerSize = BTreePage.varint(record, &at, limit: record.count), headerSize > 0,
            headerSize <= record.count
        else { return [] }
        var types: [Int64] = []
        while at < Int(headerSize), types.count < columnLimit,
            let type = BTreePage.varint(record, &at, limit: Int(headerSize))
        { types.append(type) }
        var body = Int(headerSize)
        var values: [StoredValue?] = []
        for type in types {
            let size = Self.size(of: type)
            guard size >= 0, body + size <= record.count else { break }
            values.append(value(type, record, body, size))
            body += size
        }
        return values
    }

    /// The bytes a serial type takes.
    static func size(of type: Int64) -> Int {
        switch type {
        case 0, 8, 9, 10, 11: return 0
        case 1: return 1
        case 2: return 2
        case 3: return 3
        case 4: return 4
        case 5: return 6
        case 6, 7: return 8
        default: return type < 12 || type > 1 << 40 ? -1 : Int((type - (type % 2 == 0 ? 12 : 13)) / 2)
        }
    }

    private static func value(_ type: Int64, _ b: [UInt8], _ at: Int, _ size: Int) -> StoredValue? {
        switch type {
        case 0, 10, 11: return nil
        case 8: return .integer(0)
        case 9: return .integer(1)
        case 1...6:
            var v: Int64 = b[at] & 0x80 != 0 ? -1 : 0
            for i in 0..<size { v = v << 8 | Int64(b[at + i]) }
            return .integer(v)
        case 7:
            var bits: UInt64 = 0
            for i in 0..<8 { bits = bits << 8 | UInt64(b[at + i]) }
            return .real(Double(bitPattern: bits))
        default:
            let bytes = Array(b[at..<(at + size)])
            return type % 2 == 0 ? .blob(bytes) : .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
