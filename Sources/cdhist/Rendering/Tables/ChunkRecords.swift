import HistoryKit

/// The records of one chunk of a list written in chunks (a change or transaction list, an
/// object's transactions), each separated from the one before and ended as the list's format
/// wants, handed to the ordered output as they grow; the warnings of the values they hold.
struct ChunkRecords {
    var line = JSONBytes(capacity: OrderedOutput.writeThreshold * 2)
    /// Hands bytes to the ordered output (when the chunk has the turn, or holds too many).
    let spill: (inout [UInt8]) throws -> Void
    /// Between two records (elements of a JSON array), and after each (NDJSON lines).
    let separator: [UInt8], terminator: [UInt8]
    let warnings: ValueWarnings
    private(set) var count = 0

    init(spill: @escaping (inout [UInt8]) throws -> Void, separator: [UInt8], terminator: [UInt8], store: String) {
        self.spill = spill
        self.separator = separator
        self.terminator = terminator
        warnings = ValueWarnings(store: store)
    }

    /// Adds the record `write` writes (it may spill the line as it goes).
    mutating func add(_ write: (inout JSONBytes) throws -> Void) throws {
        if count > 0 { line.bytes += separator }
        try write(&line)
        line.bytes += terminator
        line.endRecord()
        count += 1
        try spill(&line.bytes)
    }
}
