import ArgumentParser

/// The options of the MCP server, `cdhist mcp` and the `cdhist-mcp` it runs alike.
public struct MCPServerOptions: ParsableArguments {
    @Option(
        name: .customLong("max-result-bytes"),
        help: ArgumentHelp(
            "No tool result is larger than this many bytes: a longer answer comes in pages.", valueName: "bytes"))
    public var maxResultBytes: Int = 100_000

    @Flag(
        name: .customLong("allow-writes"),
        help: ArgumentHelp(
            """
            Also offer the writes: previews of a purge, a merge-position repair and a provocation, each \
            giving a previewID that the execute tool carries out once, while the files are unchanged.
            """))
    public var allowWrites = false

    public init() {}

    public func validate() throws {
        guard maxResultBytes >= 4_096 else {
            throw ValidationError("--max-result-bytes must be at least 4096 (a page must hold a row)")
        }
    }

    /// The options as `cdhist-mcp`'s command line gives them.
    var arguments: [String] {
        ["--max-result-bytes", String(maxResultBytes)] + (allowWrites ? ["--allow-writes"] : [])
    }
}
