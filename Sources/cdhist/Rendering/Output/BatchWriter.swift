import Foundation
import HistoryKit

/// Formats items (a table's rows, a list's records) and writes them on a thread of its own while
/// the caller reads the next ones: items are handed over in batches, written in the order given.
/// At most ``queuedLimit`` batches of at most ``batchSize`` items (or ``batchBytes`` bytes of
/// text) wait, so memory stays bounded however many items come; ``end()`` returns once every
/// item is written.
// Unchecked Sendable: the queued batches and the end are under `condition`; `format` runs on the
// writing thread only, and the output is written only by it until end() returns.
final class BatchWriter<Item>: @unchecked Sendable {
    /// Items per batch handed over, at most (fewer wake the thread too often), or fewer
    /// items whose text holds this many bytes (a store's values may be large).
    static var batchSize: Int { 1024 }
    static var batchBytes: Int { 1 << 20 }
    /// Batches that may wait before ``submit(_:)`` waits.
    private static var queuedLimit: Int { 4 }

    private let format: (Item, inout [UInt8]) -> Void
    private let output: Output
    private let condition = NSCondition()
    private var queued: [[Item]] = []
    private var ended = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread; from now until ``end()`` only it writes to `output`, what `format`
    /// appends for each item.
    init(output: Output, format: @escaping (Item, inout [UInt8]) -> Void) {
        self.output = output
        self.format = format
        Thread.detachNewThread { [self] in run() }
    }

    /// Hands over `items`, written after those handed over before.
    func submit(_ items: [Item]) {
        condition.lock()
        while queued.count >= Self.queuedLimit { condition.wait() }
        queued.append(items)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every item handed over is written; the caller may write again.
    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func run() {
        var bytes: [UInt8] = []
        while let items = next() {
            bytes.removeAll(keepingCapacity: true)
            for item in items { format(item, &bytes) }
            output.write(bytes: bytes)
        }
        finished.signal()
    }

    /// The next batch, or nil once ended and none is left.
    private func next() -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty && !ended { condition.wait() }
        guard !queued.isEmpty else { return nil }
        condition.broadcast()
        return queued.removeFirst()
    }
}
