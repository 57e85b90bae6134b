import Foundation
import HistoryKit

/// A request to stop a command that runs until told to (`watch`), or a write at its next
/// safe point (`purge --execute` in a session): made from another thread (Ctrl-C's), and
/// told to whoever listens (``onRequest(_:)``) or read (``isRequested``).
final class StopSignal: StopRequests, Sendable {
    private struct State {
        var requested = false
        /// Who is told of each request, by a number of theirs.
        var watchers: [Int: @Sendable (Int32) -> Void] = [:]
        var nextWatcher = 0
    }
    private let state = Locked(State())

    var isRequested: Bool { state.withLock { $0.requested } }

    func request() {
        let told = state.withLock { state -> [@Sendable (Int32) -> Void] in
            state.requested = true
            return Array(state.watchers.values)
        }
        for watcher in told { watcher(SIGINT) }
    }

    func onRequest(_ body: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
        let id = state.withLock { state -> Int in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = body
            return state.nextWatcher
        }
        return { [state] in _ = state.withLock { $0.watchers.removeValue(forKey: id) } }
    }

    /// Forgets earlier requests (a session's Ctrl-C at the prompt), before a new command.
    func reset() {
        state.withLock { $0.requested = false }
    }

    /// A stop signal that Ctrl-C (SIGINT) requests until the process ends.
    static func onInterrupt() -> StopSignal {
        let signal = StopSignal()
        interruptWatches.append(SignalWatch(SIGINT) { signal.request() })
        return signal
    }

    /// Kept so the watches stay in place.
    /// Safe unchecked: appended to only by `onInterrupt()`, which `watch` calls once, on the
    /// command's thread, before any other thread exists to read it.
    nonisolated(unsafe) private static var interruptWatches: [SignalWatch] = []
}
