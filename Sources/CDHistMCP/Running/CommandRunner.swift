import CDHistCLI
import Foundation

/// Runs cdhist commands in this process, as the command line runs them, one at a time, each
/// writing its output to a file of its own: the server's standard output carries the protocol
/// alone.
actor CommandRunner {
    /// What a command wrote, and how it ended.
    struct Run: Sendable {
        let status: Int32
        /// The file holding what it wrote to standard output (removed with ``finish()``).
        let output: URL
        /// What it wrote to standard error, at most ``errorLimit`` bytes of it.
        let errors: String

        /// Removes the output file.
        func finish() { try? FileManager.default.removeItem(at: output) }
    }

    /// Standard error beyond this many bytes is left out of a result.
    static let errorLimit = 16_384

    private let folder: URL
    private let environment: [String: String]

    /// A runner writing into a fresh folder under `temporary`, whose commands read `environment`.
    init(temporary: URL = FileManager.default.temporaryDirectory, environment: [String: String]) throws {
        folder = temporary.appendingPathComponent("cdhist-mcp-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var environment = environment
        // The tool's JSON is asked for on the command line; nothing is coloured.
        environment["CDHIST_FORMAT"] = nil
        environment["NO_COLOR"] = "1"
        self.environment = environment
    }

    /// Runs `arguments` (a command line without the program's name).
    func run(_ arguments: [String]) throws -> Run {
        let name = UUID().uuidString
        let output = folder.appendingPathComponent("\(name).out")
        let errors = folder.appendingPathComponent("\(name).err")
        guard FileManager.default.createFile(atPath: output.path, contents: nil),
            FileManager.default.createFile(atPath: errors.path, contents: nil)
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: folder.path])
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        let status: Int32
        do {
            let out = try FileHandle(forWritingTo: output)
            let err = try FileHandle(forWritingTo: errors)
            defer {
                try? out.close()
                try? err.close()
            }
            status = Entry.run(
                arguments, console: Console(standardOutput: out, standardError: err, environment: environment))
        }
        let read = try FileHandle(forReadingFrom: errors)
        defer { try? read.close() }
        let text = String(decoding: try read.read(upToCount: Self.errorLimit) ?? Data(), as: UTF8.self)
        return Run(status: status, output: output, errors: text)
    }

    /// Removes the runner's folder.
    func close() { try? FileManager.default.removeItem(at: folder) }
}
