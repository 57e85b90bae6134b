import MCP

/// One tool of the server: a cdhist command asked for its JSON document. Its arguments are the
/// command's own (``CommandArguments``), less those that only shape a terminal's output and
/// those the tool leaves out (a preview never takes `--execute`).
struct ToolDefinition: Sendable {
    /// The tool's name: the command's, with `_` for a space (`purge_preview`).
    let name: String
    /// The cdhist command it runs.
    let command: String
    /// What it answers, for an agent choosing a tool (the command's own abstract follows it).
    let purpose: String
    /// Arguments of the command the tool does not take, by their tool names.
    let leftOut: Set<String>
    /// Whether it takes `limit`, the rows of a page, in place of the command's `--limit`: a list
    /// long enough to page on.
    let pagesRows: Bool
    /// The only arguments of the command it takes, when not all but ``leftOut``; nil: all.
    let only: Set<String>?
    /// Words in every command line it runs, its preview's and its execution's (`--undo`).
    let words: [String]
    /// Words in its preview's command line only (`--preview`).
    let previewWords: [String]
    /// For a preview of a write: the words that carry it out (`--execute`); nil for a tool that
    /// only reads.
    let execution: [String]?

    init(
        _ name: String, command: String? = nil, leftOut: Set<String> = [], only: Set<String>? = nil,
        words: [String] = [], previewWords: [String] = [], pagesRows: Bool = false, execution: [String]? = nil,
        _ purpose: String
    ) {
        self.name = name
        self.command = command ?? name
        self.purpose = purpose
        self.leftOut = leftOut
        self.only = only
        self.words = words
        self.previewWords = previewWords
        self.pagesRows = pagesRows
        self.execution = execution
    }

    /// Arguments no tool takes: they shape what a terminal shows, or are the tool's own.
    static let neverTaken: Set<String> = ["help", "version", "format", "no_color", "csv_raw"]

    /// The name of the argument that continues a long result where the last page ended.
    static let cursorArgument = "cursor"
    /// The name of the argument that bounds a page's rows, for a tool that pages rows.
    static let limitArgument = "limit"

    /// The arguments of `command` the tool takes, in the command's order.
    func arguments(of command: CommandArguments) -> [CommandArguments.Argument] {
        command.arguments.filter { argument in
            !Self.neverTaken.contains(argument.name) && !leftOut.contains(argument.name)
                && only?.contains(argument.name) != false
                && !(pagesRows && argument.name == Self.limitArgument)
        }
    }

    /// The tool as the protocol lists it: its description, the JSON Schema of its arguments, and
    /// its annotations (it reads, and changes nothing: a preview too).
    func tool(for command: CommandArguments) -> Tool {
        var properties: [String: Value] = [:]
        var required: [Value] = []
        for argument in arguments(of: command) {
            properties[argument.name] = Self.schema(of: argument)
            if argument.kind == .positional, !argument.isOptional { required.append(.string(argument.name)) }
        }
        properties[Self.cursorArgument] = .object([
            "type": "string",
            "description": "Where the last page of this tool's answer ended (its page.nextCursor), to read on.",
        ])
        if pagesRows {
            properties[Self.limitArgument] = .object([
                "type": "integer", "minimum": 1,
                "description":
                    "At most this many rows in a page (each page also stays within the server's size limit).",
            ])
        }
        var schema: [String: Value] = [
            "type": "object", "properties": .object(properties), "additionalProperties": false,
        ]
        if !required.isEmpty { schema["required"] = .array(required) }
        let abstract = command.abstract.isEmpty ? "" : " (cdhist \(self.command): \(command.abstract))"
        return Tool(
            name: name, description: purpose + abstract, inputSchema: .object(schema),
            annotations: .init(readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))
    }

    /// The JSON Schema of one argument's value.
    private static func schema(of argument: CommandArguments.Argument) -> Value {
        var value: [String: Value] = ["description": .string(argument.help)]
        if argument.kind == .flag {
            value["type"] = "boolean"
            return .object(value)
        }
        var item: [String: Value] = ["type": "string"]
        if let choices = argument.choices, !choices.isEmpty { item["enum"] = .array(choices.map { .string($0) }) }
        guard argument.isRepeating else { return .object(value.merging(item) { $1 }) }
        value["type"] = "array"
        value["items"] = .object(item)
        return .object(value)
    }
}
