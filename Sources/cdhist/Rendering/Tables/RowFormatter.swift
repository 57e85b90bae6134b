import Foundation
import HistoryKit

/// Lays out a table's rows and writes them on a thread of its own while the caller
/// reads the next ones: rows are handed over in batches, written in the order given.
/// At most ``queuedLimit`` batches of at most ``batchBytes`` wait, so memory stays
/// bounded however many rows come; ``end()`` returns once every row is written.
// Unchecked Sendable: the queued batches and the end are under `condition`; the layout and
// columns never change; the output is written only by the formatting thread until end() returns.
final class RowFormatter: @unchecked Sendable {
    /// Rows per batch handed over, at most (fewer wake the thread too often), or fewer
    /// rows whose text holds this many bytes (a store's values may be large).
    static let batchSize = 1024
    static let batchBytes = 1 << 20
    /// Batches that may wait before ``submit(_:)`` waits.
    private static let queuedLimit = 4

    private let layout: TableLayout
    private let columns: [Column]
    private let style: ((String, Style) -> String)?
    private let output: Output
    private let condition = NSCondition()
    private var queued: [[[Cell]]] = []
    private var ended = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread; from now until ``end()`` only it writes to `output`.
    init(layout: TableLayout, columns: [Column], style: ((String, Style) -> String)?, output: Output) {
        self.layout = layout
        self.columns = columns
        self.style = style
        self.output = output
        Thread.detachNewThread { [self] in run() }
    }

    /// Hands over `rows`, written after those handed over before.
    func submit(_ rows: [[Cell]]) {
        condition.lock()
        while queued.count >= Self.queuedLimit { condition.wait() }
        queued.append(rows)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every row handed over is written; the caller may write again.
    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func run() {
        var bytes: [UInt8] = []
        while let rows = next() {
            bytes.removeAll(keepingCapacity: true)
            for cells in rows { layout.write(cells, columns: columns, style: style, to: &bytes) }
            output.write(bytes: bytes)
        }
        finished.signal()
    }

    /// The next batch, or nil once ended and none is left.
    private func next() -> [[Cell]]? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty && !ended { condition.wait() }
        guard !queued.isEmpty else { return nil }
        condition.broadcast()
        return queued.removeFirst()
    }
}
