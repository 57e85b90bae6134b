import Foundation

/// Sends a command's standard output through `$PAGER` (default `less -FRX`,
/// which quits by itself when the output fits the screen).
enum Pager {
    /// The pager for `line`, or nil: none for `export` (it streams), for
    /// session commands, or when `PAGER` is empty or `cat`.
    static func command(for line: String) -> String? {
        guard let first = (try? LineSplitter.split(line))?.first, LineRunner.commandNames.contains(first), first != "export" else {
            return nil
        }
        let pager = ProcessInfo.processInfo.environment["PAGER"] ?? "less -FRX"
        let trimmed = pager.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Runs `body` with stdout going into the pager, then waits for the pager.
    static func run<T>(_ pager: String, _ body: () throws -> T) throws -> T {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", pager]
        process.standardInput = pipe
        do {
            try process.run()
        } catch {
            return try body()
        }
        fflush(stdout)
        let saved = dup(STDOUT_FILENO)
        dup2(pipe.fileHandleForWriting.fileDescriptor, STDOUT_FILENO)
        defer {
            fflush(stdout)
            dup2(saved, STDOUT_FILENO)
            close(saved)
            try? pipe.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        return try body()
    }
}
