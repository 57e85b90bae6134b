import Foundation
import Testing

@testable import CDHistCLI

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The command line's signal handling (the library installs none: a write takes the caller's stops).
@Suite(.serialized) struct SignalWatchTests {
    /// A watched signal runs the handler instead of its action, and has its action back when the watch ends.
    @Test func aWatchedSignalRunsItsHandlerAndIsGivenBack() {
        #expect(SignalWatch.hasDefaultAction(SIGUSR1))
        let arrived = DispatchSemaphore(value: 0)
        let watch = SignalWatch(SIGUSR1) { arrived.signal() }
        #expect(!SignalWatch.hasDefaultAction(SIGUSR1))
        kill(getpid(), SIGUSR1)
        kill(getpid(), SIGUSR1)
        #expect(arrived.wait(timeout: .now() + 5) == .success)
        watch.cancel()
        #expect(SignalWatch.hasDefaultAction(SIGUSR1))
    }
}
