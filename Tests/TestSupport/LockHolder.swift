import Foundation

/// Another process (python3's sqlite3 module) holding a lock on a database
/// until released: a real lock from outside this process.
public final class LockHolder {
    public static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    private let process = Process()
    private let input = Pipe()
    private var released = false

    /// Starts the holder; `statement` is `BEGIN EXCLUSIVE` or `BEGIN IMMEDIATE`.
    /// Returns once the lock is held.
    public init(path: String, statement: String = "BEGIN EXCLUSIVE") throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute(sys.argv[2])
            print("locked", flush=True)
            sys.stdin.read()
            db.execute("ROLLBACK")
            """, path, statement,
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        _ = output.fileHandleForReading.readData(ofLength: 7)
    }

    /// Ends the transaction and waits for the process to exit.
    public func release() {
        guard !released else { return }
        released = true
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}
