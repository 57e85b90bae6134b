import Foundation

/// Sends a command's standard output through `$PAGER` (default `less -FRX`,
/// which quits by itself when the output fits the screen).
enum Pager {
    /// The pager for `line`, or nil: none for `export` and `watch` (they stream), for a command
    /// that asks before it writes (`--execute`), for session commands, or when
    /// `PAGER` is empty or `cat`.
    static func command(for line: String) -> String? {
        guard let words = try? LineSplitter.split(line), let first = words.first, LineRunner.commandNames.contains(first), first != "export", first != "watch",
              !words.contains("--execute") else {
            return nil
        }
        let pager = ProcessInfo.processInfo.environment["PAGER"] ?? "less -FRX"
        let trimmed = pager.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Runs `body` with stdout going into the pager, then waits for the pager.
    /// The pager is spawned in this process group, so it can read the terminal.
    static func run<T>(_ pager: String, _ body: () throws -> T) throws -> T {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return try body() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[1])
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(pager), nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        close(fds[0])
        guard spawned == 0 else {
            close(fds[1])
            return try body()
        }
        fflush(stdout)
        let saved = dup(STDOUT_FILENO)
        dup2(fds[1], STDOUT_FILENO)
        close(fds[1])
        defer {
            fflush(stdout)
            dup2(saved, STDOUT_FILENO)
            close(saved)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        return try body()
    }
}
