import HistoryKit

extension HistoryStore {
    /// Reads `query` split in chunks of `span` numbers (``ReadLayout/split(minimum:span:)``), each
    /// chunk handed to `body`; false, calling nothing, when the read was whole instead.
    public func readSplit(
        _ query: HistoryQuery, decoder: ChangeDecoder?, minimum: Int64 = HistoryStore.chunkedReadMinimum,
        span: Int64 = HistoryStore.chunkSpan, _ body: (TransactionChunk) throws -> Void
    ) throws -> Bool {
        var split = true
        try readTransactions(query, decoder: decoder, layout: .split(minimum: minimum, span: span)) { chunk in
            if chunk.isWhole { split = false } else { try body(chunk) }
        }
        return split
    }

    /// ``readSplit(_:decoder:minimum:span:_:)`` over changes.
    public func readChangesSplit(
        _ query: HistoryQuery, decoder: ChangeDecoder, minimum: Int64 = HistoryStore.chunkedReadMinimum,
        span: Int64 = HistoryStore.chunkSpan, _ body: (ChangeChunk) throws -> Void
    ) throws -> Bool {
        var split = true
        try readChanges(query, decoder: decoder, layout: .split(minimum: minimum, span: span)) { chunk in
            if chunk.isWhole { split = false } else { try body(chunk) }
        }
        return split
    }
}
