import Foundation
import MCP

/// A call of a tool, checked against its schema: the command line it runs, and where in a long
/// answer it starts.
struct ToolCall: Sendable {
    let definition: ToolDefinition
    /// The cdhist command line (without the program's name) that answers it as one JSON document.
    var commandLine: [String] { line(definition.words + definition.previewWords) }
    private let options: [String]
    private let positionals: [String]
    /// The values of the call that may name files: every option's and positional's.
    let values: [String]
    /// The rows a page may hold at most (``ToolDefinition/limitArgument``); nil: as many as fit.
    let pageRows: Int?
    /// The page it continues (``ToolDefinition/cursorArgument``); nil: the first.
    let cursor: String?
    /// The question, the call's arguments but for the cursor, in one canonical form: a cursor
    /// continues only the question it was given for.
    let question: String

    /// The call of `definition` (whose command takes `command`) with `arguments` as an agent passed
    /// them. An argument the tool does not take, a missing one, or a value of the wrong type is
    /// an invalid-parameters error naming it.
    init(_ definition: ToolDefinition, command: CommandArguments, arguments given: [String: Value]) throws {
        self.definition = definition
        let taken = definition.arguments(of: command)
        var extra = Set([ToolDefinition.cursorArgument])
        if definition.pagesRows { extra.insert(ToolDefinition.limitArgument) }
        let known = Set(taken.map(\.name)).union(extra)
        if let unknown = given.keys.sorted().first(where: { !known.contains($0) }) {
            let takes = known.sorted().joined(separator: ", ")
            throw MCPError.invalidParams("\(definition.name) takes no argument '\(unknown)' (it takes: \(takes))")
        }
        var options: [String] = []
        var positionals: [String] = []
        var named: [String] = []
        for argument in taken {
            guard let value = given[argument.name], value != .null else {
                if argument.kind == .positional, !argument.isOptional {
                    throw MCPError.invalidParams("\(definition.name) needs '\(argument.name)': \(argument.help)")
                }
                continue
            }
            switch argument.kind {
            case .flag:
                guard case .bool(let on) = value else { throw Self.wrongType(argument, definition, "true or false") }
                if on, let spelling = argument.spelling { options.append(spelling) }
            case .option, .positional:
                let values: [String]
                if argument.isRepeating, case .array(let items) = value {
                    values = try items.map { try Self.text($0, argument, definition) }
                } else {
                    values = [try Self.text(value, argument, definition)]
                }
                named += values
                if let spelling = argument.spelling {
                    // One word per value: a value that begins with '-' is never read as an option.
                    options += values.map { "\(spelling)=\($0)" }
                } else {
                    positionals += values
                }
            }
        }
        if definition.pagesRows, let limit = given[ToolDefinition.limitArgument], limit != .null {
            guard let rows = Self.integer(limit), rows >= 1 else {
                throw MCPError.invalidParams("\(definition.name): 'limit' must be a whole number of rows, at least 1")
            }
            pageRows = rows
        } else {
            pageRows = nil
        }
        switch given[ToolDefinition.cursorArgument] {
        case nil, .null?: cursor = nil
        case .string(let text)?: cursor = text
        case .some: throw MCPError.invalidParams("\(definition.name): 'cursor' must be a string (a page's nextCursor)")
        }
        self.options = options
        self.positionals = positionals
        self.values = named
        var asked = given
        asked[ToolDefinition.cursorArgument] = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        question = definition.name + " " + String(decoding: try encoder.encode(asked), as: UTF8.self)
    }

    /// The command line that carries out the preview this call is: its words and `execution`'s
    /// (`--execute`), without the preview's own.
    func executionLine(_ execution: [String]) -> [String] { line(definition.words + execution) }

    /// The command line with `words` among its options.
    private func line(_ words: [String]) -> [String] {
        // After "--" every word is a positional value, whatever it begins with.
        [definition.command] + options + words + ["--format=json", "--"] + positionals
    }

    /// A value given for `argument` as the command line's word: a string as it is, a number as
    /// it is written.
    private static func text(_ value: Value, _ argument: CommandArguments.Argument, _ tool: ToolDefinition) throws
        -> String
    {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number):
            if let whole = Int(exactly: number) { return String(whole) }
            return String(number)
        default:
            throw wrongType(argument, tool, argument.isRepeating ? "a string or an array of strings" : "a string")
        }
    }

    private static func integer(_ value: Value) -> Int? {
        switch value {
        case .int(let number): number
        case .double(let number): Int(exactly: number)
        case .string(let text): Int(text)
        default: nil
        }
    }

    private static func wrongType(_ argument: CommandArguments.Argument, _ tool: ToolDefinition, _ expected: String)
        -> MCPError
    {
        .invalidParams("\(tool.name): '\(argument.name)' must be \(expected)")
    }
}
