import HistoryReading

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// While a write runs, a stop its caller requests (Ctrl-C, SIGTERM or SIGHUP, which the command
/// line turns into requests; a session's Ctrl-C) does not end it mid-write: the request is noted
/// (and `onSignal` called, to interrupt what is running), and the writer stops at its next safe
/// point, rolls back or finishes, removes what it made and says so. The library installs no
/// signal handler: without `stops`, nothing stops the write.
public final class WriteInterruption: Sendable {
    private let signal = Locked<Int32?>(nil)
    private let onSignal: @Sendable () -> Void
    /// Stops listening to the caller's stops; nil once done.
    private let stopWatch = Locked<(@Sendable () -> Void)?>(nil)

    public init(stops: StopRequests? = nil, onSignal: @escaping @Sendable () -> Void = {}) {
        self.onSignal = onSignal
        stopWatch.set(stops?.onRequest { [weak self] signal in self?.request(signal) })
    }

    /// Notes `signal` (the first one counts) and interrupts what is running.
    private func request(_ signal: Int32) {
        self.signal.withLock { if $0 == nil { $0 = signal } }
        onSignal()
    }

    /// The first signal received, if any.
    public var received: Int32? { signal.current }

    /// Throws ``RepairError/interrupted(path:signal:outcome:)`` when a signal was received.
    public func check(path: String, outcome: @autoclosure () -> Message) throws {
        if let signal = received {
            throw RepairError.interrupted(path: path, signal: Self.name(signal), outcome: outcome())
        }
    }

    /// Stops listening to the caller's stops.
    public func cancel() {
        let unsubscribe = stopWatch.withLock { watch in
            defer { watch = nil }
            return watch
        }
        unsubscribe?()
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

/// Requests to stop a write at its next safe point, which the caller owns: the command line
/// turns Ctrl-C, SIGTERM and SIGHUP into requests; an interactive session, which owns Ctrl-C,
/// makes its own.
public protocol StopRequests: AnyObject, Sendable {
    /// Calls `body` (from any thread) on each request from now on, with the signal that asked
    /// (`SIGINT` for Ctrl-C); the returned function stops that.
    func onRequest(_ body: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void
}
