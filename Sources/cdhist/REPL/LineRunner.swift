import ArgumentParser
import Foundation
import HistoryKit

/// Runs one REPL or script line: a REPL command (`open`, `defaults`, `model`,
/// `format`, `help`, `quit`) or any cdhist command, parsed by the same command
/// types as one-shot mode with the session's store put in.
struct LineRunner {
    enum Outcome { case done, quit }

    /// REPL-only commands with their help.
    static let replCommands: [(name: String, help: String)] = [
        ("open STORE", "read another store"),
        (
            "defaults [PLIST… | none]",
            "attach shared defaults for actors, purge, check, timeline and report (none: detach)"
        ),
        ("model [PATH | none]", "decode with this model (none: the store's cache)"),
        ("format [table|json|ndjson|csv]", "output format of later commands"),
        ("help [COMMAND]", "this list, or a command's help"),
        ("clear, Ctrl-L", "clear the screen"),
        ("quit, exit, Ctrl-D", "leave"),
    ]

    /// The session's own words (`open`, `defaults`, …, `clear`, `quit`, `exit`).
    static var sessionWords: [String] {
        replCommands.flatMap {
            $0.name.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
        }.filter { !$0.hasPrefix("Ctrl") }
    }

    /// The commands a line cannot run: `repl` itself, and `mcp`, which serves on the standard streams.
    static let notInSession: Set = ["repl", "mcp"]

    /// The cdhist commands a line can run.
    static var commandNames: [String] {
        CDHist.configuration.subcommands.compactMap { $0.configuration.commandName }.filter {
            !notInSession.contains($0)
        }
    }

    let env: REPLEnvironment

    /// Runs `line`. Errors are thrown with messages written for the user.
    func run(_ line: String) throws -> Outcome {
        let words = Self.joiningQuotedValues(try LineSplitter.words(line))
        guard let first = words.first, !first.hasPrefix("#") else { return .done }
        let rest = Array(words.dropFirst())
        switch first {
        case "quit", "exit":
            return .quit
        case "open":
            guard rest.count == 1 else { throw ValidationError("usage: open STORE") }
            try env.switchStore(to: rest[0])
        case "defaults":
            if rest == ["none"] {
                env.defaults = []
            } else if !rest.isEmpty {
                try MergeStateRequest(defaults: rest, now: 0).checkDefaults()
                env.defaults = rest
            }
            acknowledge(
                changed: !rest.isEmpty,
                env.defaults.isEmpty
                    ? "no shared defaults attached" : "shared defaults: \(env.defaults.joined(separator: ", "))")
        case "model":
            if rest == ["none"] {
                env.modelPath = nil
            } else if let path = rest.first {
                _ = try ModelLoader.load(path: path)
                env.modelPath = path
            }
            acknowledge(changed: !rest.isEmpty, env.modelPath.map { "model: \($0)" } ?? "model: the store's cache")
        case "format":
            if let name = rest.first {
                guard let format = OutputFormat(rawValue: name) else {
                    throw ValidationError("unknown format '\(name)': use table, json, ndjson or csv")
                }
                env.format = format
            }
            acknowledge(changed: !rest.isEmpty, "format: \(env.format?.rawValue ?? "automatic")")
        case "help":
            say(helpText(rest.first))
        case "clear":
            // Only a person's terminal is cleared; a script's output keeps no escape codes.
            if env.terminal?.stdoutIsTerminal == true {
                env.console.standardOutput.write(Data("\u{1B}[H\u{1B}[2J\u{1B}[3J".utf8))
            }
        case let name
        where Self.commandNames.contains(name) && words.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }):
            // A command's help, as `help COMMAND` shows it (the store is the session's).
            say(helpText(name))
        default:
            let command = try parse(words)
            try command.run(CommandContext(session: env))
        }
        return .done
    }

    /// The words of a line, a quoted word beginning with `-` joined to the option before it
    /// (`--context '-[Foo bar:]'` → `--context=-[Foo bar:]`): quoted, it is a value, and only
    /// the joined form passes one that looks like an option.
    static func joiningQuotedValues(_ words: [LineSplitter.Word]) -> [String] {
        var result: [String] = []
        for (i, word) in words.enumerated() {
            if word.isQuoted, word.text.hasPrefix("-"), i > 0, !words[i - 1].isQuoted,
                let option = result.last, option.hasPrefix("--"), option != "--", !option.contains("=")
            {
                result[result.count - 1] = option + "=" + word.text
            } else {
                result.append(word.text)
            }
        }
        return result
    }

    /// The argument vector for a cdhist command line, with the session's store,
    /// defaults, model and format filled in where the line does not give them.
    func arguments(_ words: [String]) -> [String] {
        guard let name = words.first else { return words }
        let given = Set(words.dropFirst())
        guard
            let inputs = CDHist.configuration.subcommands.first(where: { $0.configuration.commandName == name })
                as? SessionInputs.Type
        else {
            return words
        }
        // A line naming another store (`--booted`) takes neither the session's store nor what belongs to it.
        let booted = words.contains(where: BootedOption.isOption)
        var args =
            booted ? Array(words.dropFirst()) : inputs.sessionStore.place(env.storePath, in: Array(words.dropFirst()))
        if !booted, inputs.readsSessionDefaults, !given.contains("--defaults"), !given.contains("--group-container") {
            for plist in env.defaults { args += ["--defaults", plist] }
        }
        if !booted, inputs.takesSessionModel, !given.contains("--model"), let model = env.modelPath {
            args += ["--model", model]
        }
        // A line that chooses its own output (`--format`, a reporter) keeps it.
        if let format = env.format, !given.contains("--format"), !given.contains("--reporter"),
            inputs.takesSessionFormat(format)
        {
            args += ["--format", format.rawValue]
        }
        return [name] + args
    }

    private func parse(_ words: [String]) throws -> any HistoryCommand {
        guard let name = words.first, Self.commandNames.contains(name) else {
            let word = words.first ?? ""
            let close = NameSuggestion.closest(to: word, among: Self.commandNames + Self.sessionWords).first?.name
            throw ValidationError(
                "unknown command '\(word)'; " + (close.map { "did you mean '\($0)'? " } ?? "")
                    + "type help for the list")
        }
        guard let command = try CDHist.parseAsRoot(try BootedOption.resolve(arguments(words))) as? any HistoryCommand
        else {
            throw ValidationError("'\(name)' does not run in a session")
        }
        return command
    }

    /// Says what a setting is now: always in a session; in a script only when the
    /// line asked (`format` alone), so a script's stdout holds only its data.
    private func acknowledge(changed: Bool, _ text: String) {
        if !changed || env.terminal != nil { say(text) }
    }

    /// Writes a session message to stdout, in order with the commands' own output.
    private func say(_ text: String) {
        env.console.standardOutput.write(Data((text + "\n").utf8))
    }

    func helpText(_ command: String?) -> String {
        if let command {
            guard let type = CDHist.configuration.subcommands.first(where: { $0.configuration.commandName == command })
            else {
                return "no command '\(command)'"
            }
            // The store is the session's: the usage names the command as the session takes it.
            return CDHist.helpMessage(for: type).replacingOccurrences(
                of: "cdhist \(command) <store> ", with: "\(command) "
            )
            .replacingOccurrences(of: "cdhist \(command) [<options>] <store>", with: "\(command) [<options>]")
        }
        // Each entry's text wraps under itself at the terminal's width.
        let width = (env.terminal ?? Terminal.of(env.console, noColor: true)).width
        func entry(_ name: String, _ text: String, column: Int) -> [String] {
            let indent = String(repeating: " ", count: column)
            let head = "  " + name.padding(toLength: column - 2, withPad: " ", startingAt: 0)
            let wrapped = width.map { TextWrap.lines(text, width: max(20, $0 - column)) } ?? [text]
            return [(name.count > column - 3 ? "  " + name + "\n" + indent : head) + wrapped[0]]
                + wrapped.dropFirst().map { indent + $0 }
        }
        var lines = ["Commands (the store is implied):"]
        for type in CDHist.configuration.subcommands
        where !Self.notInSession.contains(type.configuration.commandName ?? "") {
            lines += entry(type.configuration.commandName ?? "", type.configuration.abstract, column: 18)
        }
        lines.append("Session:")
        for c in Self.replCommands { lines += entry(c.name, c.help, column: 34) }
        lines.append("help COMMAND shows a command's options.")
        return lines.joined(separator: "\n")
    }
}
