import ArgumentParser
import CDHistCLI
import CDHistMCP
import MCP

/// The cdhist-mcp executable: cdhist's MCP server on this process's standard input and output
/// (`cdhist mcp` runs it).
@main
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdhist-mcp",
        abstract: "cdhist's Model Context Protocol server on standard input and output (what cdhist mcp runs).")

    @OptionGroup var options: MCPServerOptions

    func run() async throws {
        let server = try await HistoryServer(
            options: .init(maxResultBytes: options.maxResultBytes, allowWrites: options.allowWrites))
        try await server.serve(StdioTransport())
    }
}
