import Foundation
import TestSupport
import GRDB

/// Runs the built executables and finds the repository's files.
enum CLI {

    /// The folder holding the built products (beside the test bundle).
    static let products: URL = {
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

    /// Runs `executable` with `arguments`; stdin is empty. A run longer than
    /// five minutes is killed and throws, so a hang fails the test instead of CI.
    @discardableResult
    static func run(_ arguments: [String], executable: String = "cdhist", environment: [String: String] = [:]) throws -> Result {
        let path = executable.hasPrefix("/") ? executable : products.appendingPathComponent(executable).path
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (k, v) in environment { env[k] = v }
        let r = try Subprocess.run(path, arguments, environment: env)
        return Result(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self), stderr: String(decoding: r.stderr, as: UTF8.self))
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
        let hasWAL = FileManager.default.fileExists(atPath: path + "-wal") && FileManager.default.fileExists(atPath: path + "-shm")
        return try DatabaseQueue(path: "file:\(path)?" + (immutable || !hasWAL ? "immutable=1" : "mode=ro&readonly_shm=1"), configuration: config)
    }

    static func of(_ path: String, immutable: Bool = false) throws -> [String] {
        let queue = try readOnlyQueue(path, immutable: immutable)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines: [String] = []
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                lines.append("table \(table): " + (try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) ?? ""))
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY rowid") {
                    lines.append(row.description)
                }
            }
            return lines
        }
    }
}
