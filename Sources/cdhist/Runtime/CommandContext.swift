import ArgumentParser
import Foundation
import HistoryKit

/// What a command runs with, handed to it as a parameter: the console it writes to and reads its
/// environment from, and the interactive session it is a line of (nil in one-shot mode), which
/// lends it the open store, its stop for Ctrl-C and someone to ask.
struct CommandContext {
    let console: Console
    let session: REPLEnvironment?

    /// A one-shot command's context: `console`, no session.
    init(console: Console) {
        self.console = console
        session = nil
    }

    /// The context of a line of `session`.
    init(session: REPLEnvironment) {
        console = session.console
        self.session = session
    }

    /// Writes one line to standard error (``Console/printError(_:)``).
    func printError(_ message: String) { console.printError(message) }

    /// The store at `path`: the session's open one when it is the same file (and no save is asked
    /// for), else freshly opened (its notices printed on stderr), as after save `atSave` when given.
    func openStore(_ path: String, lockTimeout: Double, atSave: Int? = nil) throws -> HistoryStore {
        if atSave == nil, let shared = try session?.store(for: path) { return shared }
        let store = try HistoryStore.open(path, options: OpenOptions(busyTimeout: lockTimeout, atSave: atSave))
        for notice in store.notices { console.printNotice(notice) }
        return store
    }

    /// The stop Ctrl-C requests for a command that runs until told to: the session's, cleared
    /// for this command; nil in one-shot mode, where Ctrl-C is the process's own.
    func interruption() -> StopSignal? { session?.freshStop() }

    /// The stops a write listens to: Ctrl-C, SIGTERM and SIGHUP, and in a session its own stop.
    func writeStops() -> WriteStops { WriteStops(session: interruption()) }

    /// Lets go of the session's connection to its store, before a write to the store's files.
    func closeSessionStore() { session?.closeStore() }
}

/// A cdhist command: it runs with the context it is given, by the command line or by a session.
protocol HistoryCommand: ParsableCommand {
    func run(_ context: CommandContext) throws
}

extension HistoryCommand {
    /// Run as this process's command (ArgumentParser's entry), on its standard streams.
    func run() throws { try run(CommandContext(console: .process)) }
}
