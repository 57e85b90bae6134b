import Foundation
import HistoryKit

/// Ctrl-C (SIGINT) for a session: it either interrupts the running command or, when
/// none runs, wakes the prompt through a pipe the prompt polls beside the terminal.
final class SignalPipe {
    private var watch: SignalWatch?
    private var promptFDs: [Int32] = [-1, -1]

    var promptFD: Int32 { promptFDs[0] }

    func install(onInterrupt: @escaping @Sendable () -> Bool) {
        _ = pipe(&promptFDs)
        let wakeFD = promptFDs[1]
        watch = SignalWatch(SIGINT) {
            var byte: UInt8 = 1
            if !onInterrupt() { _ = write(wakeFD, &byte, 1) }
        }
    }

    func drainPrompt() {
        var byte: UInt8 = 0
        _ = read(promptFDs[0], &byte, 1)
    }

    func uninstall() {
        watch?.cancel()
        watch = nil
    }
}
