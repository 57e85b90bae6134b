import Foundation
import HistoryKit

/// Bytes of numbered chunks written by several threads at once that reach the
/// output in chunk order, as if one thread had written them: the chunk whose
/// turn it is writes through; the others keep their bytes until it is theirs,
/// and wait once they hold ``heldLimit`` (so memory stays bounded whatever the
/// store). Chunks must be taken in order (chunk `i` only after every earlier
/// chunk was), so the chunk whose turn it is is always running.
// Unchecked Sendable: the turn, the held bytes and the failure are under `condition`; only the
// chunk whose turn it is writes to the output.
final class OrderedOutput: @unchecked Sendable {
    private let output: Output
    private let condition = NSCondition()
    /// The chunk that may write now.
    private var turn = 0
    /// Set when a chunk failed: the others stop waiting.
    private var stopped = false
    private var firstFailure: Error?
    /// Bytes a chunk keeps until its turn before it waits: 32 MiB over all cores.
    let heldLimit = max(2 << 20, (32 << 20) / Cores.usable)
    /// Bytes gathered before they are handed on.
    static let writeThreshold = 64 << 10
    /// Written between the bytes of two chunks that both have some (the chunks of one list's
    /// elements, each chunk's joined within it); nil: nothing.
    private let separator: [UInt8]?
    /// Written before the first bytes of all (none when no chunk has any).
    private let opening: [UInt8]
    /// Some chunk wrote bytes; the chunk whose turn it is wrote bytes.
    private var wroteAny = false
    private var turnWrote = false

    init(output: Output, separator: [UInt8]? = nil, opening: [UInt8] = []) {
        self.output = output
        self.separator = separator
        self.opening = opening
    }

    /// Hands `bytes` (chunk `index`'s, emptied when written) to the output when the
    /// chunk has the turn and they are many; waits for the turn when they are too many to keep.
    func offer(_ bytes: inout [UInt8], chunk index: Int) throws {
        guard bytes.count >= Self.writeThreshold else { return }
        condition.lock()
        defer { condition.unlock() }
        if turn != index {
            guard bytes.count >= heldLimit else { return }
            try waitForTurn(index)
        }
        write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Writes the rest of chunk `index` once it has the turn, and passes the turn on;
    /// `then` runs while the turn is still held (for what must follow chunk order).
    func finish(_ bytes: inout [UInt8], chunk index: Int, then: () -> Void = {}) throws {
        condition.lock()
        defer { condition.unlock() }
        try waitForTurn(index)
        write(bytes)
        bytes.removeAll(keepingCapacity: true)
        then()
        turn += 1
        turnWrote = false
        condition.broadcast()
    }

    /// Writes the bytes of the chunk whose turn it is (under the lock), after the separator
    /// when they are its first and an earlier chunk wrote some.
    private func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if !wroteAny { output.write(bytes: opening) }
        if let separator, wroteAny, !turnWrote { output.write(bytes: separator) }
        wroteAny = true
        turnWrote = true
        output.write(bytes: bytes)
    }

    /// Releases every waiting chunk after `error` (they throw ``Stopped``).
    func stop(because error: Error) {
        condition.lock()
        stopped = true
        if firstFailure == nil, !(error is Stopped) { firstFailure = error }
        condition.broadcast()
        condition.unlock()
    }

    /// The first error a chunk stopped for (not a ``Stopped``).
    var failure: Error? {
        condition.lock()
        defer { condition.unlock() }
        return firstFailure
    }

    /// Thrown to a chunk waiting when another failed.
    struct Stopped: Error {}

    private func waitForTurn(_ index: Int) throws {
        while turn != index && !stopped { condition.wait() }
        if stopped { throw Stopped() }
    }
}
