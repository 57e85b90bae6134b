import ArgumentParser

/// The options of the MCP server, `cdhist mcp` and the `cdhist-mcp` it runs alike.
public struct MCPServerOptions: ParsableArguments {
    @Option(
        name: .customLong("max-result-bytes"),
        help: ArgumentHelp(
            "No tool result is larger than this many bytes: a longer answer comes in pages.", valueName: "bytes"))
    public var maxResultBytes: Int = 100_000

    public init() {}

    public func validate() throws {
        guard maxResultBytes >= 4_096 else {
            throw ValidationError("--max-result-bytes must be at least 4096 (a page must hold a row)")
        }
    }

    /// The options as `cdhist-mcp`'s command line gives them.
    var arguments: [String] { ["--max-result-bytes", String(maxResultBytes)] }
}
