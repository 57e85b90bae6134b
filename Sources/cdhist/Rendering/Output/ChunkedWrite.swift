import HistoryKit

/// Output formatted in numbered chunks of transactions on several threads at once and written
/// in chunk order through an ``OrderedOutput`` (byte for byte what one thread writes), or, when
/// the read is not split, in one go on this thread.
enum ChunkedWrite {
    /// Walks transactions with their changes, on this thread: to `plain` those the read hands
    /// out as plain transactions (a chunked read does), to `decoded` the others.
    typealias Walk = (_ plain: (PlainTransaction, ChangeStream) throws -> Void, _ decoded: (Transaction, ChangeStream) throws -> Void) throws -> Void
    /// Reads the transactions in numbered chunks on several threads, each handed to the body
    /// with its own walk; false when the read is not worth splitting (read it in one go then).
    typealias Read = (@escaping (Int, Walk) throws -> Void) throws -> Bool
    /// Formats chunk `index` (read by the walk) and hands its bytes to the ordered output;
    /// `alone`: the only chunk, read on this thread.
    typealias Format = (_ index: Int, _ alone: Bool, _ walk: Walk) throws -> Void

    /// Runs `format` on each chunk `inChunks` reads, or once on `inOneGo` when it reads none.
    /// When a chunk fails, the others stop, and the first failure is thrown.
    static func run(_ ordered: OrderedOutput, inChunks: Read, inOneGo: Walk, _ format: @escaping Format) throws {
        func chunk(_ index: Int, alone: Bool, _ walk: Walk) throws {
            do {
                try format(index, alone, walk)
            } catch {
                ordered.stop(because: error)
                throw error
            }
        }
        do {
            let chunked = try inChunks { try chunk($0, alone: false, $1) }
            if !chunked {
                try chunk(0, alone: true, inOneGo)
            }
        } catch {
            // A chunk stopped because another failed: that failure is the one to tell.
            throw ordered.failure ?? error
        }
    }
}
