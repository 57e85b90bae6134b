import Foundation
import HistoryKit

/// A request to stop a command that runs until told to (`watch`), or a write at its next
/// safe point (`purge --execute` in a session): made from another thread (Ctrl-C's), waited
/// for with a timeout between polls, or watched.
// Unchecked Sendable: the request and the watchers are under `lock`; the pipe's descriptors
// are made in init and only read and written through (write and poll are thread-safe).
final class StopSignal: StopRequests, @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false
    /// Who is told of each request, by a number of theirs.
    private var watchers: [Int: @Sendable (Int32) -> Void] = [:]
    private var nextWatcher = 0
    /// Written on each request, so a wait wakes at once.
    private var fds: [Int32] = [-1, -1]

    init() {
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
    }

    deinit { for fd in fds where fd >= 0 { close(fd) } }

    var isRequested: Bool { lock.withLock { requested } }

    func request() {
        let told = lock.withLock { () -> [@Sendable (Int32) -> Void] in
            requested = true
            return Array(watchers.values)
        }
        var byte: UInt8 = 1
        _ = write(fds[1], &byte, 1)
        for watcher in told { watcher(SIGINT) }
    }

    func onRequest(_ body: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
        let id = lock.withLock { () -> Int in
            nextWatcher += 1
            watchers[nextWatcher] = body
            return nextWatcher
        }
        return { [weak self] in
            guard let self else { return }
            _ = self.lock.withLock { self.watchers.removeValue(forKey: id) }
        }
    }

    /// Forgets earlier requests (a session's Ctrl-C at the prompt), before a new command.
    func reset() {
        lock.withLock { requested = false }
        var byte: UInt8 = 0
        while read(fds[0], &byte, 1) == 1 {}
    }

    /// Waits up to `seconds`, or until a stop is requested; true when one is.
    func wait(seconds: Double) -> Bool {
        if isRequested { return true }
        var fd = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, Int32(max(0, min(seconds, 3600)) * 1000))
        return isRequested
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
