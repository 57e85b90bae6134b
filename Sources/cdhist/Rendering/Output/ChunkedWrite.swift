import HistoryKit

/// Output formatted in numbered chunks of transactions (or of changes) on several threads at once
/// and written in chunk order through an ``OrderedOutput`` (byte for byte what one thread
/// writes), or, when the read is not split, in one chunk on this thread.
enum ChunkedWrite {
    /// Walks transactions with their changes: to `plain` those the read hands out as plain
    /// transactions (a split read does), to `decoded` the others.
    typealias Walk = (
        _ plain: (PlainTransaction, ChangeStream) throws -> Void, _ decoded: (Transaction, ChangeStream) throws -> Void
    ) throws -> Void
    /// Walks changes: to `plain` those that decode without a warning (read in place), to
    /// `decoded` the others.
    typealias ChangeWalk = (_ plain: (PlainChange) throws -> Void, _ decoded: (Change) throws -> Void) throws -> Void
    /// Walks changes with their transactions, as ``ChangeWalk`` walks changes.
    typealias ChangeTransactionWalk = (
        _ plain: (PlainChange, ChangeTransaction) throws -> Void, _ decoded: (Change, ChangeTransaction) throws -> Void
    ) throws -> Void
    /// Reads in numbered chunks, each handed to the body with its index, whether it is the whole
    /// read (on this thread) and its walk: ``HistoryStore/readTransactions(_:decoder:layout:_:)``
    /// or ``HistoryStore/readChanges(_:decoder:layout:_:)``.
    typealias Read<W> = (@escaping (_ index: Int, _ whole: Bool, _ walk: W) throws -> Void) throws -> Void

    /// The read of `query`'s transactions with their changes (decoded with `decoder`; nil: alone),
    /// split when `split` and the read is worth it, else in one read.
    static func transactions(_ store: HistoryStore, _ query: HistoryQuery, decoder: ChangeDecoder?, split: Bool = true)
        -> Read<Walk>
    {
        { body in
            try store.readTransactions(query, decoder: decoder, layout: split ? .split() : .oneRead) {
                try body($0.index, $0.isWhole, $0.forEach)
            }
        }
    }

    /// The read of `query`'s changes, decoded with `decoder`, split when `split` and the read is worth it.
    static func changes(_ store: HistoryStore, _ query: HistoryQuery, decoder: ChangeDecoder, split: Bool = true)
        -> Read<ChangeWalk>
    {
        { body in
            try store.readChanges(query, decoder: decoder, layout: split ? .split() : .oneRead) {
                try body($0.index, $0.isWhole, $0.forEach)
            }
        }
    }

    /// The read of `query`'s changes with their transactions (as ``changes(_:_:decoder:split:)``
    /// reads them): ``ChangeChunk/forEach(withTransactions:decoded:)``.
    static func changesWithTransactions(_ store: HistoryStore, _ query: HistoryQuery, decoder: ChangeDecoder)
        -> Read<ChangeTransactionWalk>
    {
        { body in
            try store.readChanges(query, decoder: decoder) {
                try body($0.index, $0.isWhole, $0.forEach(withTransactions:decoded:))
            }
        }
    }

    /// One chunk being formatted: its place, whether it is the whole read (on this thread), its
    /// walk, and where its bytes go early (``OrderedOutput/offer(_:chunk:)``: when the chunk has
    /// the turn, or holds too many).
    struct Chunk<W> {
        let index: Int
        let whole: Bool
        let walk: W
        let spill: (inout [UInt8]) throws -> Void
    }

    /// Formats each chunk `read` reads with `format`, which gives the chunk's last bytes and a
    /// value, and writes them through `ordered` in chunk order; `finished` is then called with
    /// the value, in chunk order, one chunk at a time (under the ordered output's lock). When a
    /// chunk fails, the others stop, and the first failure is thrown.
    static func run<W, T>(
        _ ordered: OrderedOutput, _ read: Read<W>,
        _ format: @escaping (Chunk<W>) throws -> (bytes: [UInt8], value: T),
        finished: @escaping (_ value: T, _ whole: Bool) -> Void
    ) throws {
        do {
            try read { index, whole, walk in
                do {
                    var (bytes, value) = try format(
                        Chunk(index: index, whole: whole, walk: walk) { try ordered.offer(&$0, chunk: index) })
                    try ordered.finish(&bytes, chunk: index) { finished(value, whole) }
                } catch {
                    ordered.stop(because: error)
                    throw error
                }
            }
        } catch {
            // A chunk stopped because another failed: that failure is the one to tell.
            throw ordered.failure ?? error
        }
    }
}
