import Foundation
import HistoryKit

/// What commands run by the REPL (or a script) share: the console, the open store, the
/// attached defaults and model, the chosen format, and the terminal. A line's command is given
/// it in its ``CommandContext``.
// @unchecked Sendable: the store, which Ctrl-C's signal thread reaches (``interrupt()``), is a
// Locked value, and the stop signal is its own; everything else is set by the session's
// thread between lines and read by the line's command on that same thread.
final class REPLEnvironment: @unchecked Sendable {
    /// Where the session and its commands write, and the environment they read.
    let console: Console
    private(set) var storePath: String
    /// The open store; ``interrupt()`` reads it from the signal thread.
    private let store = Locked<HistoryStore?>(nil)
    var defaults: [String] = []
    var modelPath: String?
    var format: OutputFormat?
    /// Set for an interactive session: output is for a person even when it goes through a pager.
    var terminal: Terminal?
    /// What a closed standard output means while a command's output goes through the pager: it
    /// was quit, so the command is to stop (set by the session's thread around a paged command).
    var standardOutputClosed: (() -> Void)?
    /// Asks the user a yes/no question; nil when no one can answer (scripts).
    var confirm: ((String) -> Bool)?
    let lockTimeout: Double
    /// Asks a command that runs until told to (`watch`) to stop: Ctrl-C returns to the prompt.
    let stop = StopSignal()

    /// The session's stop signal, cleared for a command that Ctrl-C may stop.
    func freshStop() -> StopSignal {
        stop.reset()
        return stop
    }

    init(storePath: String, lockTimeout: Double = 2, console: Console) {
        self.storePath = storePath
        self.lockTimeout = lockTimeout
        self.console = console
    }

    /// The open store for `path` when it is the session's, opening it on first use.
    func store(for path: String) throws -> HistoryStore? {
        guard sameFile(path, storePath) else { return nil }
        return try openStore()
    }

    /// The session's store, opened on first use (its notices printed then) and
    /// again when an app has written the files since (quietly: a store opened
    /// without its `-wal` would not see the commits).
    func openStore() throws -> HistoryStore {
        let current = store.current
        if let current, !current.changedOnDisk, !current.isClosed { return current }
        // Closed first: opening looks at -shm, which must not happen beside a connection of ours.
        store.set(nil)
        let opened = try HistoryStore.open(storePath, options: OpenOptions(busyTimeout: lockTimeout))
        if current == nil { for notice in opened.notices { console.printNotice(notice) } }
        store.set(opened)
        return opened
    }

    /// Switches to another store (`open`); the old one is closed.
    func switchStore(to path: String) throws {
        let opened = try HistoryStore.open(path, options: OpenOptions(busyTimeout: lockTimeout))
        for notice in opened.notices { console.printNotice(notice) }
        store.set(opened)
        storePath = path
    }

    /// Closes the store (before a purge writes to it); the next use reopens it.
    func closeStore() {
        store.set(nil)
    }

    /// Lets the store be read again after an interruption: a new line starts.
    func clearInterrupt() {
        store.withLock { $0?.clearInterrupt() }
    }

    /// Interrupts the statement running on the store, and asks a watch to stop (Ctrl-C; called from the signal thread).
    func interrupt() {
        store.withLock { $0?.interrupt() }
        stop.request()
    }

    private func sameFile(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }
}
