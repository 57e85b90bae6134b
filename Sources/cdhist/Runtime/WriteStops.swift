import Foundation
import HistoryKit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The stops a write takes from the command line (HistoryKit installs no signal handler): while
/// the write listens, Ctrl-C, SIGTERM and SIGHUP become requests to stop at its next safe point,
/// each only where nobody else handles it (a session owns Ctrl-C and gives its own stop).
final class WriteStops: StopRequests {
    private let session: StopSignal?

    init(session: StopSignal?) { self.session = session }

    func onRequest(_ body: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void {
        let watches = [SIGINT, SIGTERM, SIGHUP].filter(SignalWatch.hasDefaultAction).map { signal in
            SignalWatch(signal) { body(signal) }
        }
        let sessionStop = session?.onRequest(body)
        return {
            for watch in watches { watch.cancel() }
            sessionStop?()
        }
    }
}
