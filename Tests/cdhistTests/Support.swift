import CDHistCLI
import Foundation
import GRDB
import HistoryKit
import TestSupport
import Testing

/// Runs the built executables and finds the repository's files.
enum CLI {

    /// The folder `CDHIST_TEST_PRODUCTS` names, whose `cdhist` is another build's, installed
    /// (`scripts/check-libedit` runs the session tests against the release build that way);
    /// nil for this build's own.
    static let installedProducts = ProcessInfo.processInfo.environment["CDHIST_TEST_PRODUCTS"]

    /// The folder holding the built products (beside the test bundle), or ``installedProducts``.
    static let products: URL = {
        if let installedProducts { return URL(fileURLWithPath: installedProducts) }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("cdhist").path) { return url }
        }
        return Repository.root.appendingPathComponent(".build/debug")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }
    }

    /// Runs `executable` with `arguments`; stdin is empty. A one-shot command of cdhist whose
    /// output is all a test needs runs in this process (``runsInProcess(_:environment:)``);
    /// anything else is launched, and a run longer than five minutes is killed and throws, so
    /// a hang fails the test instead of CI.
    @discardableResult
    static func run(_ arguments: [String], executable: String = "cdhist", environment: [String: String] = [:]) throws
        -> Result
    {
        if executable == "cdhist" && runsInProcess(arguments, environment: environment) {
            return try runInProcess(arguments, environment: environment)
        }
        return try launch(arguments, executable: executable, environment: environment)
    }

    /// Runs the binary `executable` with `arguments`, whatever they are.
    @discardableResult
    static func launch(_ arguments: [String], executable: String = "cdhist", environment: [String: String] = [:]) throws
        -> Result
    {
        try result(start(arguments, executable: executable, environment: environment).wait())
    }

    /// Commands whose run in this process is the binary's: each one-shot command that neither
    /// opens a session, nor waits for a signal (`watch`), nor writes a store or a plist
    /// (`--execute`: locks, signals, fault injection), with no environment but the width and
    /// colour settings. Everything else needs a process of its own.
    static func runsInProcess(_ arguments: [String], environment: [String: String]) -> Bool {
        // Another build's binary is what is under test: every command goes to it.
        if installedProducts != nil { return false }
        let oneShot: Set = [
            "info", "transactions", "changes", "show", "entities", "authors", "object", "deleted", "export", "diff",
            "actors", "token", "purge", "repair-defaults", "provoke", "check", "cloudkit", "timeline", "report",
            "stores", "help",
        ]
        guard Set(environment.keys).isSubset(of: ["COLUMNS", "NO_COLOR", "CDHIST_FORMAT"]), let first = arguments.first
        else { return false }
        guard oneShot.contains(first) || ["--help", "-h", "--version"].contains(first) else { return false }
        return !arguments.contains("--execute") && !arguments.contains("--undo")
    }

    /// Runs `arguments` as cdhist would, in this process, its output and errors written to files
    /// of its own (never a terminal), with this process's environment but for `COLUMNS`,
    /// `NO_COLOR` and `CDHIST_FORMAT`, which `environment` gives (``testEnvironment``).
    static func runInProcess(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let dir = try TemporaryDirectory()
        let out = dir.file("stdout")
        let err = dir.file("stderr")
        for file in [out, err] { FileManager.default.createFile(atPath: file, contents: nil) }
        guard let outHandle = FileHandle(forWritingAtPath: out), let errHandle = FileHandle(forWritingAtPath: err)
        else {
            throw CocoaError(.fileWriteUnknown)
        }
        let env = testEnvironment(environment)
        let status = Entry.run(
            arguments, console: Console(standardOutput: outHandle, standardError: errHandle, environment: env))
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: status, stdout: String(decoding: FileContents.read(out) ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileContents.read(err) ?? Data(), as: UTF8.self))
    }

    /// Starts `executable` with `arguments` without waiting; ``result(_:)`` reads what it did.
    static func start(_ arguments: [String], executable: String = "cdhist", environment: [String: String] = [:]) throws
        -> Subprocess.Running
    {
        let path = executable.hasPrefix("/") ? executable : products.appendingPathComponent(executable).path
        return try Subprocess.start(path, arguments, environment: testEnvironment(environment))
    }

    /// This process's environment with `environment` over it; unless a test says otherwise,
    /// output written to a pipe is fitted to no width and is JSON (`CDHIST_FORMAT=json`, as
    /// scripts ask for it: a test reads documents; one that checks tables asks for them).
    static func testEnvironment(_ environment: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        env["COLUMNS"] = nil
        env["CDHIST_FORMAT"] = "json"
        for (k, v) in environment { env[k] = v }
        return env
    }

    static func result(_ r: Subprocess.Result) -> Result {
        Result(
            status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self),
            stderr: String(decoding: r.stderr, as: UTF8.self))
    }
}

/// A logical dump of a database (every table's rows, WAL included), for comparing stores
/// whose bytes may differ (WAL salts are random).
enum LogicalDump {
    /// A read-only connection that writes nothing beside the store (never plain
    /// mode=ro: as root it would create or rewrite -wal and -shm).
    static func readOnlyQueue(_ path: String, immutable: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        let hasWAL =
            FileManager.default.fileExists(atPath: path + "-wal")
            && FileManager.default.fileExists(atPath: path + "-shm")
        return try DatabaseQueue(
            path: "file:\(path)?" + (immutable || !hasWAL ? "immutable=1" : "mode=ro&readonly_shm=1"),
            configuration: config)
    }

    static func of(_ path: String, immutable: Bool = false) throws -> [String] {
        let queue = try readOnlyQueue(path, immutable: immutable)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines: [String] = []
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            {
                lines.append(
                    "table \(table): "
                        + (try String.fetchOne(
                            db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) ?? ""))
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY rowid") {
                    lines.append(row.description)
                }
            }
            return lines
        }
    }
}

/// The peak resident memory of a run of cdhist, measured from outside it: a
/// small python3 parent runs it and reads getrusage(RUSAGE_CHILDREN). (The
/// ru_maxrss that wait4 reports for a child of the test process counts the
/// test's own memory: Linux keeps the high-water mark of the address space
/// the child shared with its parent until exec.)
enum PeakMemory {
    static let available: Bool = {
        if let sanitizer = ProcessInfo.processInfo.environment["CDHIST_SANITIZER"] {
            print(
                """
                NOTICE: built with the \(sanitizer) sanitizer (scripts/sanitize): its shadow memory inflates \
                every process, so peak memory is not checked
                """
            )
            return false
        }
        guard let r = try? CLI.run(["python3", "-c", "import resource, subprocess"], executable: "/usr/bin/env"),
            r.status == 0
        else {
            print("NOTICE: python3 not found; peak memory is not measured")
            return false
        }
        return true
    }()

    /// Runs cdhist with `arguments`, its stdout going to `stdout`; the peak is in bytes.
    static func run(_ arguments: [String], stdout: String) throws -> (status: Int32, stderr: String, peakBytes: Int64) {
        let script = """
            import resource, subprocess, sys
            with open(sys.argv[1], "wb") as out:
                r = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE)
            sys.stderr.buffer.write(r.stderr)
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let r = try CLI.run(
            ["python3", "-c", script, stdout, CLI.products.appendingPathComponent("cdhist").path] + arguments,
            executable: "/usr/bin/env")
        let fields = r.stdout.split(separator: " ").map {
            Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        // Linux reports ru_maxrss in KiB.
        return (Int32(fields.first ?? -1), r.stderr, (fields.count > 1 ? fields[1] : -1) * 1024)
    }
}

/// CSV as cdhist writes it, parsed.
enum CSVRows {
    /// Quoted CSV fields of one record per line (no field here holds a line break).
    static func parse(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { line in
            var fields: [String] = []
            var field = ""
            var quoted = false
            var chars = Array(line)
            var i = 0
            while i < chars.count {
                let c = chars[i]
                if quoted {
                    if c == "\"" {
                        if i + 1 < chars.count && chars[i + 1] == "\"" {
                            field.append("\"")
                            i += 1
                        } else {
                            quoted = false
                        }
                    } else {
                        field.append(c)
                    }
                } else if c == "\"" {
                    quoted = true
                } else if c == "," {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(c)
                }
                i += 1
            }
            fields.append(field)
            return fields
        }
    }
}

extension Tag {
    /// A suite that takes long (sessions in tmux, signals, installs, big stores, browsers):
    /// `scripts/quick-test` leaves it out.
    @Tag static var slow: Tag
}
