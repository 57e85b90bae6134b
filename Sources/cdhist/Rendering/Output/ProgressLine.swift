import Foundation

/// A progress line on stderr for long work, redrawn in place at most five
/// times a second; nothing when stderr is not a terminal.
final class ProgressLine {
    private let enabled: Bool
    /// Look at the clock once every this many steps.
    private let every: Int
    private var shown: Date
    private var wrote = false
    /// Steps counted so far.
    private(set) var steps = 0
    /// Where the line is drawn: the console's standard error.
    private let standardError: FileHandle

    /// A line on `console`'s standard error; `quietFirst`: nothing during the first 0.2 s (work
    /// that is usually quick).
    init(_ console: Console, enabled: Bool, every: Int, quietFirst: Bool = false) {
        standardError = console.standardError
        self.enabled = enabled
        self.every = every
        shown = quietFirst ? Date() : .distantPast
    }

    /// Counts a step, and shows `text` when it is time.
    func step(_ text: () -> String) {
        advance(by: 1, text)
    }

    /// Counts `count` steps at once, and shows `text` when it is time.
    func advance(by count: Int, _ text: () -> String) {
        let before = steps
        steps += count
        guard enabled, steps / every != before / every else { return }
        let now = Date()
        guard now.timeIntervalSince(shown) > 0.2 else { return }
        shown = now
        wrote = true
        write("\r" + text())
    }

    /// Ends the line: leaves `last` on it, or clears what was shown (nil).
    func finish(leaving last: String?) {
        guard enabled else { return }
        if let last { write("\r\(last)\n") } else if wrote { write("\r\u{1B}[K") }
    }

    private func write(_ text: String) {
        try? standardError.write(contentsOf: Data(text.utf8))
    }
}
