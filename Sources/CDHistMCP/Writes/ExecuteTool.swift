import MCP

/// The one tool that writes, offered only with writes allowed: it carries out a preview of this
/// session (purge, repair_defaults, provoke or its undo), by the previewID the preview gave.
enum ExecuteTool {
    static let name = "execute"
    static let previewArgument = "preview"

    static let tool = Tool(
        name: name,
        description: """
            Carry out a write previewed in this session: the purge, merge-position repair, provocation or \
            its undo whose previewID is given, exactly as previewed, with its backups. Refused when a file the \
            preview read has changed since (preview again), and after one use.
            """,
        inputSchema: .object([
            "type": "object",
            "properties": .object([
                previewArgument: .object([
                    "type": "string",
                    "description": """
                    The previewID of a purge_preview, repair_defaults_preview, provoke_preview or \
                    provoke_undo_preview.
                    """,
                ])
            ]),
            "required": .array([.string(previewArgument)]),
            "additionalProperties": false,
        ]),
        annotations: .init(readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false))
}
