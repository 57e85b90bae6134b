import Foundation
import HistoryReading

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// While a repair writes, Ctrl-C, SIGTERM and SIGHUP no longer end the process mid-write: the
/// signal is noted (and `onSignal` called, to interrupt what is running), and the writer stops at
/// its next safe point, rolls back or finishes, removes what it made and says so. Only signals
/// nobody else handles are taken; where another owns Ctrl-C (an interactive session), its
/// ``StopRequests`` stand for it.
// Unchecked Sendable: the signal received and the watches are read and written under `lock`;
// the closures it holds are @Sendable.
public final class WriteInterruption: @unchecked Sendable {
    private let lock = NSLock()
    private var signal: Int32?
    private var watches: [SignalWatch] = []
    private let onSignal: @Sendable () -> Void
    private var stopWatch: (@Sendable () -> Void)?

    public init(stops: StopRequests? = nil, onSignal: @escaping @Sendable () -> Void = {}) {
        self.onSignal = onSignal
        for sig in [SIGINT, SIGTERM, SIGHUP] where SignalWatch.hasDefaultAction(sig) {
            watches.append(SignalWatch(sig) { [weak self] in self?.request(sig) })
        }
        stopWatch = stops?.onRequest { [weak self] in self?.request(SIGINT) }
    }

    /// Notes `signal` (the first one counts) and interrupts what is running.
    private func request(_ signal: Int32) {
        lock.withLock { if self.signal == nil { self.signal = signal } }
        onSignal()
    }

    /// The first signal received, if any.
    public var received: Int32? { lock.withLock { signal } }

    /// Throws ``RepairError/interrupted(path:signal:outcome:)`` when a signal was received.
    public func check(path: String, outcome: @autoclosure () -> Message) throws {
        if let signal = received {
            throw RepairError.interrupted(path: path, signal: Self.name(signal), outcome: outcome())
        }
    }

    /// Gives the signals back their actions.
    public func cancel() {
        for watch in watches { watch.cancel() }
        watches = []
        stopWatch?()
        stopWatch = nil
    }

    deinit { cancel() }

    /// `SIGINT` (Ctrl-C), `SIGTERM`, `SIGHUP`.
    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT (Ctrl-C)"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }
}

/// Requests to stop a write at its next safe point that do not come as a signal to the process:
/// an interactive session owns Ctrl-C, and says so through this.
public protocol StopRequests: AnyObject, Sendable {
    /// Calls `body` (from any thread) on each request from now on; the returned function stops that.
    func onRequest(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}
