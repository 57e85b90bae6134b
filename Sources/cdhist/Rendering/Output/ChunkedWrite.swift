import HistoryKit

/// Output formatted in numbered chunks of transactions (or of changes) on several threads at once
/// and written in chunk order through an ``OrderedOutput`` (byte for byte what one thread
/// writes), or, when the read is not split, in one go on this thread.
enum ChunkedWrite {
    /// Walks transactions with their changes, on this thread: to `plain` those the read hands
    /// out as plain transactions (a chunked read does), to `decoded` the others.
    typealias Walk = (
        _ plain: (PlainTransaction, ChangeStream) throws -> Void, _ decoded: (Transaction, ChangeStream) throws -> Void
    ) throws -> Void
    /// Reads the transactions in numbered chunks on several threads, each handed to the body
    /// with its own walk; false when the read is not worth splitting (read it in one go then).
    typealias Read = (@escaping (Int, Walk) throws -> Void) throws -> Bool
    /// Walks changes, on this thread: to `plain` those that decode without a warning (read in
    /// place), to `decoded` the others.
    typealias ChangeWalk = (_ plain: (PlainChange) throws -> Void, _ decoded: (Change) throws -> Void) throws -> Void
    /// As ``Read``, in chunks of changes.
    typealias ChangeRead = (@escaping (Int, ChangeWalk) throws -> Void) throws -> Bool

    /// Runs `format` on each chunk `inChunks` reads (its index, false, and its walk), or once on
    /// `inOneGo` when it reads none (0, true: the only chunk, read on this thread). `format`
    /// hands the chunk's bytes to `ordered`. When a chunk fails, the others stop, and the first
    /// failure is thrown.
    static func run(
        _ ordered: OrderedOutput, inChunks: Read, inOneGo: Walk,
        _ format: @escaping (_ index: Int, _ alone: Bool, _ walk: Walk) throws -> Void
    ) throws {
        try run(
            ordered, { try inChunks { index, walk in try stopping(ordered) { try format(index, false, walk) } } },
            alone: { try stopping(ordered) { try format(0, true, inOneGo) } })
    }

    /// ``run(_:inChunks:inOneGo:_:)`` over chunks of changes.
    static func run(
        _ ordered: OrderedOutput, inChunks: ChangeRead, inOneGo: ChangeWalk,
        _ format: @escaping (_ index: Int, _ alone: Bool, _ walk: ChangeWalk) throws -> Void
    ) throws {
        try run(
            ordered, { try inChunks { index, walk in try stopping(ordered) { try format(index, false, walk) } } },
            alone: { try stopping(ordered) { try format(0, true, inOneGo) } })
    }

    /// Runs `chunked`, or `alone` when it read nothing.
    private static func run(_ ordered: OrderedOutput, _ chunked: () throws -> Bool, alone: () throws -> Void) throws {
        do {
            if try !chunked() { try alone() }
        } catch {
            // A chunk stopped because another failed: that failure is the one to tell.
            throw ordered.failure ?? error
        }
    }

    /// Runs a chunk's `body`; when it fails, the other chunks stop.
    private static func stopping(_ ordered: OrderedOutput, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            ordered.stop(because: error)
            throw error
        }
    }
}
