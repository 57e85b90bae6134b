import HistoryKit

/// The records of one chunk of a list written in chunks (``ListRenderer/addInChunks(inChunks:inOneGo:warnings:_:)``),
/// each separated from the one before as the list's format separates them, handed to the
/// ordered output as they grow; the warnings of the values they hold.
struct ChunkRecords {
    var line = JSONBytes(capacity: OrderedOutput.writeThreshold * 2)
    /// Hands bytes to the ordered output (when the chunk has the turn, or holds too many).
    let spill: (inout [UInt8]) throws -> Void
    /// NDJSON: each record on a line of its own (else elements of a JSON array).
    let lines: Bool
    let warnings: ValueWarnings
    private(set) var count = 0

    init(spill: @escaping (inout [UInt8]) throws -> Void, lines: Bool, store: String) {
        self.spill = spill
        self.lines = lines
        warnings = ValueWarnings(store: store)
    }

    /// Adds the record `write` writes (it may spill the line as it goes).
    mutating func add(_ write: (inout JSONBytes) throws -> Void) throws {
        if !lines && count > 0 { line.bytes += ListRenderer.jsonSeparator }
        try write(&line)
        if lines { line.bytes.append(0x0A) }
        line.endRecord()
        count += 1
        try spill(&line.bytes)
    }
}
