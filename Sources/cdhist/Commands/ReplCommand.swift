import ArgumentParser
import Foundation

/// `cdhist STORE` or `cdhist repl STORE`: the interactive session on a
/// terminal; with `-c` or a non-terminal stdin, a script.
struct ReplCommand: HistoryCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract:
            "Open an interactive session on a store (also: cdhist STORE); run -c commands or stdin lines as a script.",
        // The usage ArgumentParser writes lists every option: over 80 columns.
        usage: "cdhist repl [<options>] <store>",
        discussion: CommandHelp.repl
    )

    @Argument(help: ArgumentHelp("The store to open (commands run on it).", valueName: "store"))
    var store: String

    @OptionGroup var booted: BootedOptions

    @Option(
        name: .customShort("c"),
        help: ArgumentHelp("Run this command on the store and exit (repeatable).", valueName: "command"))
    var command: [String] = []

    @Flag(name: .customLong("keep-going"), help: "In -c or stdin scripts, go on after a failing command.")
    var keepGoing = false

    @OptionGroup var lock: LockOptions

    /// The REPL on a terminal, a script otherwise.
    func run(_ context: CommandContext) throws {
        let env = REPLEnvironment(storePath: store, lockTimeout: lock.lockTimeout, console: context.console)
        // A store that cannot be opened ends the session before it starts, whatever the input.
        _ = try env.openStore()
        let status: Int32
        if !command.isEmpty {
            status = ScriptRunner(runner: LineRunner(env: env), keepGoing: keepGoing).run(command)
        } else if isatty(STDIN_FILENO) == 1 {
            status = InteractiveSession(env: env).run()
        } else {
            var lines: [String] = []
            while let line = Swift.readLine(strippingNewline: true) { lines.append(line) }
            status = ScriptRunner(runner: LineRunner(env: env), keepGoing: keepGoing).run(lines)
        }
        if status != 0 { throw ExitCode(status) }
    }
}
