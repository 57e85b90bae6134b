import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// Every error of "safe opening" reaches the user as one line on stderr, exit status 2: from
/// the binary, whose exit status and unhandled traps are the process's.
@Suite(.tags(.slow)) struct ErrorTests {
    private func expectOneLineError(_ args: [String], startsWith prefix: String, contains text: String? = nil) throws {
        let r = try CLI.launch(args)
        #expect(r.status == 2, "\(args): status \(r.status)")
        #expect(r.stdout.isEmpty)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(args): \(r.stderr)")
        #expect(r.stderr.hasPrefix(prefix), "\(r.stderr)")
        if let text { #expect(r.stderr.contains(text), "\(r.stderr)") }
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtrac"))
    }

    @Test func storeErrors() throws {
        let dir = try TemporaryDirectory()
        try expectOneLineError(
            ["info", dir.file("none.sqlite")], startsWith: "cdhist: \(dir.file("none.sqlite")): no such file")
        try expectOneLineError(["transactions", dir.path], startsWith: "cdhist: \(dir.path): is a directory")
        // A session on a missing store ends before reading a line; a mistyped command gets the closest one.
        try expectOneLineError(
            [dir.file("none.sqlite")], startsWith: "cdhist: \(dir.file("none.sqlite")): no such file")
        try expectOneLineError(
            ["chek", Repository.fixtures + "/MergeState/Tasks.sqlite"],
            startsWith: "cdhist: unknown command 'chek'; did you mean 'check'?")
        try expectOneLineError(["infoo"], startsWith: "cdhist: unknown command 'infoo'; did you mean 'info'?")
        _ = FileManager.default.createFile(
            atPath: dir.file("random.sqlite"), contents: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 97) }))
        try expectOneLineError(
            ["changes", dir.file("random.sqlite")],
            startsWith: "cdhist: \(dir.file("random.sqlite")): not an SQLite database")

        let good = dir.file("good.sqlite")
        var fixture = Scenarios.all[0].store
        fixture.journalMode = .rollback
        try StoreWriter.write(fixture, to: good)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        try bytes.prefix(bytes.count - 4096 - 100).write(to: URL(fileURLWithPath: dir.file("truncated.sqlite")))
        try expectOneLineError(
            ["export", dir.file("truncated.sqlite")],
            startsWith: "cdhist: \(dir.file("truncated.sqlite")): truncated SQLite database")
        var damaged = bytes
        for i in 100..<4096 { damaged[i] = UInt8(truncatingIfNeeded: i &* 13) }
        try damaged.write(to: URL(fileURLWithPath: dir.file("corrupt.sqlite")))
        try expectOneLineError(
            ["info", dir.file("corrupt.sqlite")],
            startsWith: "cdhist: \(dir.file("corrupt.sqlite")): corrupt SQLite database")

        let plain = dir.file("plain.sqlite")
        let q = try DatabaseQueue(path: plain)
        try q.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
        try q.close()
        try expectOneLineError(
            ["authors", plain], startsWith: "cdhist: \(plain): SQLite database but not a Core Data store")

        var noHistory = fixture
        noHistory.historyEnabled = false
        try StoreWriter.write(noHistory, to: dir.file("nohistory.sqlite"))
        try expectOneLineError(
            ["entities", dir.file("nohistory.sqlite")],
            startsWith: "cdhist: \(dir.file("nohistory.sqlite")): Core Data store without persistent history")
    }

    /// A copied WAL store whose main file lost its last pages: what the WAL
    /// holds still reads, and a command that needs the lost pages says the
    /// file is truncated (the header check is skipped when a WAL has content,
    /// since a live checkpoint makes the header run ahead of the file).
    @Test func truncatedMainFileBesideItsWAL() throws {
        let dir = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/WALPending", prefix: "Tasks.sqlite")
        let path = dir.file("Tasks.sqlite")
        let whole = try CLI.run(["export", Repository.fixtures + "/WALPending/Tasks.sqlite"]).stdout
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 81920 - 3 * 4096)
        try handle.close()
        let export = try CLI.run(["export", path])
        #expect(export.status == 0 && export.stdout == whole, "\(export.stderr)")
        try expectOneLineError(
            ["info", path],
            startsWith: "cdhist: \(path): truncated SQLite database (header declares 81920 bytes, file has 69632)")
    }

    /// A defaults plist that is empty or not a plist at all: one line saying which.
    @Test func defaultsThatAreNoPlist() throws {
        let dir = try TemporaryDirectory()
        let store = Repository.fixtures + "/MergeState/Tasks.sqlite"
        _ = FileManager.default.createFile(atPath: dir.file("empty.plist"), contents: Data())
        try expectOneLineError(
            ["actors", store, "--defaults", dir.file("empty.plist")],
            startsWith: "cdhist: \(dir.file("empty.plist")): not a property list (empty file)")
        _ = FileManager.default.createFile(atPath: dir.file("text.plist"), contents: Data("hello".utf8))
        try expectOneLineError(
            ["actors", store, "--defaults", dir.file("text.plist")],
            startsWith: "cdhist: \(dir.file("text.plist")): not a property list (neither binary nor XML)")
    }

    @Test(.enabled(if: LockHolder.available)) func lockedStore() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("locked.sqlite")
        var fixture = Scenarios.all[0].store
        fixture.journalMode = .rollback
        try StoreWriter.write(fixture, to: path)
        let holder = try LockHolder(path: path)
        defer { holder.release() }
        try expectOneLineError(
            ["info", path, "--lock-timeout", "0.3"], startsWith: "cdhist: \(path): locked by another process",
            contains: "0.3 s")
    }

    @Test func usageAndValueErrors() throws {
        let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"
        let unknown = try CLI.run(["transactions", store, "--bogus"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--bogus"))
        try expectOneLineError(
            ["transactions", store, "--after", "yesterday-ish"],
            startsWith: "cdhist: --after 'yesterday-ish': not a date")
        // A transaction as tables print it is taken wherever one is; a bare number is refused with how to write it.
        try expectOneLineError(
            ["transactions", store, "--after", "30"],
            startsWith:
                """
                cdhist: --after '30': a bare number is neither a transaction nor a date: write #30 (or tx:30) for \
                transaction 30
                """
        )
        let hashed = try CLI.run(["transactions", store, "--after", "#32", "--format", "csv"])
        #expect(
            hashed.status == 0 && hashed.lines.count == 3 && hashed.lines.last?.hasPrefix("34,") == true,
            "\(hashed.stdout)")
        #expect(
            try CLI.run(["show", store, "#20", "--format", "json"]).json()["transaction"].map {
                ($0 as? [String: Any])?["transactionNumber"] as? Int
            } == 20)
        #expect(
            try CLI.run(["purge", store, "--before", "#5", "--format", "json"]).json()["cutoffTransaction"] as? Int == 5
        )
        try expectOneLineError(
            ["watch", store, "--since", "tx:999"],
            startsWith: "cdhist: \(store): no transaction #999 yet: the newest is #34;")
        try expectOneLineError(
            ["watch", store, "--since", "tx:-2"],
            startsWith: "cdhist: --since 'tx:-2': expected tx:N with a transaction number (0 or more)")
        try expectOneLineError(
            ["changes", store, "--entity", "Nope"], startsWith: "cdhist: \(store): no entity named 'Nope' in this store"
        )
        try expectOneLineError(
            ["transactions", store, "--after", "token:/nonexistent/token.data"],
            startsWith: "cdhist: /nonexistent/token.data: no such token file")
        try expectOneLineError(
            ["transactions", store, "--after", "token:00000000-0000-0000-0000-000000000000:5"],
            startsWith: "cdhist: \(store): token 00000000-0000-0000-0000-000000000000:5 is for another store")
        // Objects: what is not an object ID, another store's object, an entity the store lacks, an object it never had.
        try expectOneLineError(
            ["changes", store, "--object", "Task"], startsWith: "cdhist: --object 'Task': expected ENTITY/pN")
        try expectOneLineError(
            ["changes", store, "--object", "Task/p0"],
            startsWith: "cdhist: --object 'Task/p0': 'p0' is not a primary key")
        try expectOneLineError(
            ["changes", store, "--object", "x-coredata:///Task/t5F0A2C"],
            startsWith: "cdhist: --object 'x-coredata:///Task/t5F0A2C': a temporary ID: the object was not saved yet")
        try expectOneLineError(
            ["changes", store, "--object", "x-coredata://00000000-0000-0000-0000-000000000000/Task/p3"],
            startsWith:
                "cdhist: \(store): object x-coredata://00000000-0000-0000-0000-000000000000/Task/p3 is of another store"
        )
        try expectOneLineError(
            ["object", store, "x-coredata://00000000-0000-0000-0000-000000000000/Task/p3"],
            startsWith:
                "cdhist: \(store): object x-coredata://00000000-0000-0000-0000-000000000000/Task/p3 is of another store"
        )
        try expectOneLineError(
            ["transactions", store, "--object", "Nope/p1"],
            startsWith: "cdhist: \(store): no entity named 'Nope' in this store")
        try expectOneLineError(
            ["object", store, "Task/p999"],
            startsWith:
                "cdhist: \(store): no object Task/p999: ZTASK has no row 999, and no change to it in the history")
        for (args, message) in [
            (["--interval", "5"], "--interval takes 10 to 60000 milliseconds, not 5"),
            (["--limit", "0"], "--limit must be at least 1, not 0"),
        ] {
            let r = try CLI.run(["watch", store] + args)
            #expect(r.status == 2 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        try expectOneLineError(
            ["watch", store, "--entity", "Nope"], startsWith: "cdhist: \(store): no entity named 'Nope' in this store")
        try expectOneLineError(
            ["diff", store, Repository.fixtures + "/Purged/Tasks.sqlite"],
            startsWith: "cdhist: new '\(Repository.fixtures)/Purged/Tasks.sqlite': a different store from \(store)")
        try expectOneLineError(
            ["info", store, "--model", "/nonexistent.momd"],
            startsWith: "cdhist: /nonexistent.momd: no such model file or folder")
        // GRDB converts the timeout to Int32 milliseconds with a trap: 1e300 crashed every command (SIGILL).
        for bad in ["1e300", "-1", "nan", "inf", "86401"] {
            let r = try CLI.run(["info", store, "--lock-timeout=\(bad)"])
            #expect(
                r.status == 2 && r.stderr.contains("--lock-timeout takes seconds from 0 to 86400"),
                "\(bad): \(r.status) \(r.stderr)")
        }
        #expect(try CLI.run(["info", store, "--lock-timeout", "86400"]).status == 0)
        let help = try CLI.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS"))
        let version = try CLI.run(["--version"])
        // A test build has no commit compiled in; scripts/install's builds do (scripts/check-libedit
        // runs this test against one, through CDHIST_TEST_PRODUCTS).
        let commit = CLI.installedProducts == nil ? "unknown" : "[0-9a-f]{12}(?:-modified)?"
        let line = try Regex(
            #"cdhist \d+\.\d+\.\d+ \(commit "# + commit + #", SQLite (.+), (GNU Readline [0-9.]+|libedit)\)\n"#)
        let match = try line.wholeMatch(in: version.stdout)
        let sqlite = match?.output[1].substring.map(String.init)
        #expect(version.status == 0 && sqlite == SQLiteLibrary.version, "\(version.stdout)")
        // The line editor the build chose: CDHIST_LINE_EDITOR when the tests were built with it, else
        // libedit on macOS and GNU Readline elsewhere (Package.swift).
        let editor = match?.output[2].substring.map(String.init) ?? ""
        switch ProcessInfo.processInfo.environment["CDHIST_LINE_EDITOR"] {
        case "libedit": #expect(editor == "libedit")
        case "readline": #expect(editor.hasPrefix("GNU Readline"))
        default:
            #if os(macOS)
                #expect(editor == "libedit")
            #else
                #expect(editor.hasPrefix("GNU Readline"))
            #endif
        }
    }
}
