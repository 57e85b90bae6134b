import Foundation

/// A command's arguments as the command line defines them, read from its own description
/// (ArgumentParser's `--experimental-dump-help`): a tool's schema and the command line it runs
/// are made from them, so that a tool takes exactly what its command takes.
struct CommandArguments: Sendable {
    /// One argument of a command: a positional value, an option taking a value, or a flag.
    struct Argument: Sendable, Equatable {
        enum Kind: String, Sendable { case positional, option, flag }
        let kind: Kind
        /// The tool's name for it: the option's long name, or the positional value's name, with
        /// `_` for `-` (`lock_timeout`, `store`).
        let name: String
        /// How the command line spells it (`--lock-timeout`); nil for a positional value.
        let spelling: String?
        let isRepeating: Bool
        let isOptional: Bool
        let help: String
        /// The values it accepts, when the command lists them.
        let choices: [String]?
    }

    let commandName: String
    let abstract: String
    let arguments: [Argument]

    /// The arguments of every command of `dump` (the root command's description), by name.
    static func all(fromDump dump: Data) throws -> [String: CommandArguments] {
        let root = try JSONDecoder().decode(DumpRoot.self, from: dump)
        var commands: [String: CommandArguments] = [:]
        for command in root.command.subcommands ?? [] {
            commands[command.commandName] = CommandArguments(command)
        }
        return commands
    }

    private init(_ command: DumpCommand) {
        commandName = command.commandName
        abstract = command.abstract ?? ""
        arguments = (command.arguments ?? []).compactMap { argument in
            guard argument.shouldDisplay, let kind = Argument.Kind(rawValue: argument.kind) else { return nil }
            let long = argument.names?.first { $0.kind == "long" }?.name
            let name: String
            switch kind {
            case .positional:
                guard let value = argument.valueName else { return nil }
                name = value
            case .option, .flag:
                guard let long else { return nil }
                name = long
            }
            return Argument(
                kind: kind, name: name.replacingOccurrences(of: "-", with: "_"),
                spelling: kind == .positional ? nil : long.map { "--\($0)" },
                isRepeating: argument.isRepeating, isOptional: argument.isOptional,
                help: argument.abstract ?? "", choices: argument.allValues)
        }
    }
}

/// The parts of ArgumentParser's description of a command line that a tool needs.
private struct DumpRoot: Decodable {
    let command: DumpCommand
}

private struct DumpCommand: Decodable {
    let commandName: String
    let abstract: String?
    let arguments: [DumpArgument]?
    let subcommands: [DumpCommand]?
}

private struct DumpArgument: Decodable {
    struct Name: Decodable {
        let kind: String
        let name: String
    }
    let kind: String
    let names: [Name]?
    let valueName: String?
    let isOptional: Bool
    let isRepeating: Bool
    let shouldDisplay: Bool
    let abstract: String?
    let allValues: [String]?
}
