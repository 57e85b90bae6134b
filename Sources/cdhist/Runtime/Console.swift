import Foundation

/// Where a command writes and what environment it reads: this process's standard output,
/// standard error and environment, or, for a command run inside another program (a test),
/// files and an environment of its own. Commands reach it through ``current``; a run binds
/// it for its duration (``Entry/run(_:console:)``).
public struct Console: @unchecked Sendable {
    // @unchecked: FileHandle is a class Foundation does not mark Sendable on every platform;
    // a console's handles are only written through, each write whole, as the process's are.
    public var standardOutput: FileHandle
    public var standardError: FileHandle
    public var environment: [String: String]
    /// This process's own streams: a failed write to standard output ends the process.
    let isProcess: Bool

    /// A console of the given handles and environment (a command's output goes to them).
    public init(standardOutput: FileHandle, standardError: FileHandle, environment: [String: String]) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.environment = environment
        isProcess = false
    }

    private init(process: ()) {
        standardOutput = .standardOutput
        standardError = .standardError
        environment = ProcessInfo.processInfo.environment
        isProcess = true
    }

    /// This process's standard streams and environment.
    public static let process = Console(process: ())

    /// The console of the command running on this task.
    @TaskLocal public static var current = Console.process
}
