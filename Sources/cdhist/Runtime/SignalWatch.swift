import Dispatch
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Runs a handler on a queue of its own each time a signal arrives, in place of the signal's
/// action: Dispatch's signal source, the same on Linux and macOS (no handler written against
/// either system's `struct sigaction`). The signal is ignored while watched, so it neither ends
/// the process nor interrupts a system call; ``cancel()`` gives it back its earlier action.
// Unchecked Sendable: the Dispatch source runs the handler on its own queue; `cancelled` is
// changed only by cancel(), which the watch's owner calls once, on its own thread.
final class SignalWatch: @unchecked Sendable {
    let signal: Int32
    private let source: DispatchSourceSignal
    /// The earlier action (nil: the default).
    private let previous: Action?
    private var cancelled = false

    /// What `signal()` returns: the action a signal had before.
    private typealias Action = @convention(c) (Int32) -> Void

    /// Watches `signal`; returns once the watch is in place (Dispatch registers it on
    /// another thread: a signal sent before that would be lost).
    init(_ signal: Int32, handler: @escaping @Sendable () -> Void) {
        self.signal = signal
        previous = Glue.signal(signal, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: signal, queue: DispatchQueue(label: "cdhist.signal.\(signal)"))
        let registered = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { registered.signal() }
        source.setEventHandler(handler: handler)
        source.resume()
        _ = registered.wait(timeout: .now() + 2)
        Self.unblock(signal)
    }

    /// Stops watching: the signal has its earlier action again.
    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        source.cancel()
        // Dispatch leaves its own handler installed on Linux; the earlier action is put back.
        _ = Glue.signal(signal, previous)
    }

    deinit { cancel() }

    /// Whether `signal` has its default action now (nobody handles or ignores it).
    static func hasDefaultAction(_ signal: Int32) -> Bool {
        let current = Glue.signal(signal, SIG_IGN)
        _ = Glue.signal(signal, current)
        return current == nil
    }

    /// Gives `signal` its default action and sends it to this process: what it would have done unwatched.
    static func endProcess(with signal: Int32) -> Never {
        _ = Glue.signal(signal, SIG_DFL)
        unblock(signal)
        kill(getpid(), signal)
        // The signal ends the process before this: only a signal some thread blocks could wait.
        _exit(128 + signal)
    }

    /// Lets `signal` reach this thread: a process may start with it blocked (inherited).
    static func unblock(_ signal: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// `signal()`, the same call on both systems (BSD semantics on both: the action stays, and
    /// interrupted calls restart); only the name of its function type differs (`sig_t` on
    /// Darwin, `__sighandler_t` on glibc), which is why it is reached through one wrapper.
    private enum Glue {
        static func signal(_ signal: Int32, _ action: Action?) -> Action? {
            #if canImport(Darwin)
                return Darwin.signal(signal, action)
            #else
                return Glibc.signal(signal, action)
            #endif
        }
    }
}
