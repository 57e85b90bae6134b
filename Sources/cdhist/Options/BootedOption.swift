import ArgumentParser
import HistoryKit

/// `--booted BUNDLE_ID`, which every command that takes a store takes in its place: the app's
/// store on the booted simulator (``BootedSimulator``), put where the command takes its store.
enum BootedOption {
    static let name = "--booted"

    /// Whether `word` is the option (`--booted` or `--booted=ID`).
    static func isOption(_ word: String) -> Bool { word == name || word.hasPrefix(name + "=") }

    /// `arguments` (a command's name first) with the store `--booted ID` finds put where the command
    /// takes its store, and `--booted ID` kept last (the command shows it in its help, ``BootedOptions``,
    /// and may name it again); unchanged without it, and for `stores`, whose own option it is.
    static func resolve(_ arguments: [String]) throws -> [String] {
        guard let index = arguments.firstIndex(where: isOption), arguments.first != "stores" else { return arguments }
        var args = arguments
        let id: String
        if args[index] == name {
            guard index + 1 < args.count, !args[index + 1].hasPrefix("-") else {
                throw ValidationError("\(name) needs the app's bundle identifier")
            }
            id = args[index + 1]
            args.removeSubrange(index...(index + 1))
        } else {
            id = String(args[index].dropFirst(name.count + 1))
            args.remove(at: index)
        }
        if args.contains("--group-container") { throw ValidationError("give \(name) or --group-container, not both") }
        let store = try BootedSimulator.store(bundleID: id)
        guard let command = args.first else { return ["repl", store, name, id] }
        let inputs =
            CDHist.configuration.subcommands.first { $0.configuration.commandName == command } as? SessionInputs.Type
        return [command] + (inputs?.sessionStore ?? .first).place(store, in: Array(args.dropFirst())) + [name, id]
    }
}

/// `--booted BUNDLE_ID` in the help of each command that takes a store. ``BootedOption/resolve(_:)`` has put
/// the store it names in place before the command is parsed; the bundle identifier stays for the command to
/// name again (the commands `provoke` prints to run next).
struct BootedOptions: ParsableArguments {
    @Option(
        name: .customLong("booted"),
        help: ArgumentHelp(
            "In place of the store: the store of the app with this bundle identifier on the booted simulator.",
            valueName: "bundle-id"))
    var bundleID: String?

    /// `--booted ID` when the store was given so (nil otherwise), for a command to print.
    var words: [String]? { bundleID.map { [BootedOption.name, $0] } }
}
