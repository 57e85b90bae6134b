import ArgumentParser
import Foundation
import HistoryKit

/// `cdhist mcp`: the Model Context Protocol server for coding agents, on standard input and
/// output. It is its own executable, `cdhist-mcp`, installed beside cdhist (the protocol's
/// library brings networking cdhist does not link); this runs it.
struct MCPCommand: HistoryCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the store-reading commands to a coding agent over the Model Context Protocol (stdin/stdout).",
        discussion: CommandHelp.mcp)

    @OptionGroup var server: MCPServerOptions

    /// The server's executable: beside this one.
    static var serverExecutable: URL? {
        Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("cdhist-mcp")
    }

    func run(_ context: CommandContext) throws {
        if context.session != nil {
            throw ValidationError("mcp serves on standard input and output: run it as its own process (cdhist mcp)")
        }
        guard let executable = Self.serverExecutable, FileManager.default.isExecutableFile(atPath: executable.path)
        else {
            throw CLIError.notFound(
                path: Self.serverExecutable?.path ?? "cdhist-mcp",
                what: """
                    the MCP server is not installed beside cdhist: install the cdhist-mcp package, or build it \
                    (swift build --product cdhist-mcp, or scripts/install)
                    """)
        }
        // The server reads this process's standard input and writes its standard output.
        let child = try ChildProcess.spawn(
            executable.path, server.arguments, environment: context.console.environment, redirections: [],
            closeOthers: true)
        let status = child.wait()
        if status != 0 { throw ExitCode(status) }
    }
}
