import Foundation

/// Turns SIGINT into bytes on a pipe (the only thing a handler may safely do)
/// and a thread that either interrupts the running command or wakes the prompt.
final class SignalPipe {
    nonisolated(unsafe) private static var signalWriteFD: Int32 = -1
    private var signalFDs: [Int32] = [-1, -1]
    private var promptFDs: [Int32] = [-1, -1]
    private var previous = sigaction()

    var promptFD: Int32 { promptFDs[0] }

    func install(onInterrupt: @escaping () -> Bool) {
        _ = pipe(&signalFDs)
        _ = pipe(&promptFDs)
        Self.signalWriteFD = signalFDs[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(SignalPipe.signalWriteFD, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, &previous)
        Self.unblock(SIGINT)
        let readFD = signalFDs[0]
        let wakeFD = promptFDs[1]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while read(readFD, &byte, 1) == 1 {
                if !onInterrupt() { _ = write(wakeFD, &byte, 1) }
            }
        }
    }

    /// Lets `signal` reach this thread: the runtime may start the process with it blocked
    /// (inherited), and a handler installed for it must be able to run.
    static func unblock(_ signal: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    func drainPrompt() {
        var byte: UInt8 = 0
        _ = read(promptFDs[0], &byte, 1)
    }

    func uninstall() {
        sigaction(SIGINT, &previous, nil)
    }
}
