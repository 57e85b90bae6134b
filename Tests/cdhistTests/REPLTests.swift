import Foundation
import HistoryFixtures
import TestSupport
import Testing

/// Script mode: `-c` and stdin, exit codes, line numbers, --keep-going.
@Suite(.tags(.slow)) struct ScriptModeTests {
    let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"

    @Test func oneShotAndREPLGiveIdenticalOutput() throws {
        let stores = ["AppGroup", "Purged", "NoModelCache", "WALPending", "MergeState"].map {
            Repository.fixtures + "/\($0)/Tasks.sqlite"
        }
        let commands: [[String]] = [
            ["info"], ["transactions"], ["transactions", "--author", "widget", "--reverse"],
            ["changes", "--type", "delete"],
            ["show", "LAST"], ["entities"], ["entities", "--entity", "Task"], ["authors"], ["export"],
            ["actors", "--defaults", Repository.fixtures + "/MergeState/phtk.plist", "--now", "2025-03-06T09:00:00Z"],
            ["purge", "--before", "tx:25", "--now", "2025-03-06T09:00:00Z"],
            ["token", Repository.fixtures + "/MergeState/token.data"],
        ]
        for path in stores {
            let last = String(try CLI.run(["info", path]).json()["lastTransactionNumber"] as? Int ?? 1)
            for command in commands {
                let words = command.map { $0 == "LAST" ? last : $0 }
                for format in ["json", "table", "csv"] where !(words[0] == "export" && format != "json") {
                    var oneShot = [words[0]]
                    if lineRunnerStoreFirst.contains(words[0]) { oneShot.append(path) }
                    oneShot += words.dropFirst() + ["--format", format]
                    if words[0] == "token" { oneShot += ["--store", path] }
                    let a = try CLI.run(oneShot)
                    let line = (words + ["--format", format]).map(quote).joined(separator: " ")
                    let b = try CLI.run([path, "-c", line])
                    #expect(a.stdout == b.stdout, "\(path): \(line)")
                    #expect(a.status == b.status || (a.status == 1 && b.status == 2), "\(path): \(line)")
                }
            }
        }
    }

    @Test func firstFailureStopsWithItsLineNumber() throws {
        let dir = try TemporaryDirectory()
        let script = dir.file("script.txt")
        try "# a comment\ninfo --format csv\n\nchanges --entity Nope\nauthors --format csv\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        let r = try CLI.run(["-c", "cat \(script) | \(CLI.products.path)/cdhist \(store)"], executable: "/bin/sh")
        #expect(r.status == 2)
        #expect(
            r.stderr
                == """
                cdhist: line 4: \(store): no entity named 'Nope' in this store (known: Attachment, Document, \
                Photo, Person, Project, Tag, Task)\n
                """
        )
        #expect(r.stdout.hasPrefix("section,field,value,"), "\(r.stdout.prefix(200))")
        #expect(r.stdout.contains(",store,\(store),") && !r.stdout.contains("authors,,app,"))
        let going = try CLI.run(
            ["-c", "cat \(script) | \(CLI.products.path)/cdhist \(store) --keep-going"], executable: "/bin/sh")
        #expect(going.status == 2)
        #expect(going.stdout.contains("authors,,app,16,"))
        let ok = try CLI.run([store, "-c", "format csv", "-c", "transactions --limit 1", "-c", "quit", "-c", "bogus"])
        #expect(ok.status == 0)
        // A script's stdout is its data: settings are not echoed (asked for, they are).
        #expect(ok.stdout.hasPrefix("transactionNumber,timestamp,"), "\(ok.stdout)")
        let asked = try CLI.run([
            store, "-c", "format csv", "-c", "format", "-c", "defaults \(Repository.fixtures)/Purged/defaults.plist",
            "-c", "defaults",
        ])
        #expect(
            asked.stdout == "format: csv\nshared defaults: \(Repository.fixtures)/Purged/defaults.plist\n"
                && asked.stderr.isEmpty, "\(asked)")
        let bad = try CLI.run([store, "-c", "info", "-c", "show 999"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "cdhist: line 2: \(store): no transaction 999 (the store has #1…#34)\n")
        let usage = try CLI.run([store, "-c", "transactions --nope"])
        #expect(usage.status == 2 && usage.stderr.hasPrefix("cdhist: line 1: Unknown option '--nope'"))
        let quoted = try CLI.run([
            store, "-c", "transactions --author 'NSCloudKitMirroringDelegate.setup' --format csv",
        ])
        #expect(quoted.stdout.split(separator: "\n").count == 2)
        let unterminated = try CLI.run([store, "-c", "transactions --author 'x"])
        #expect(unterminated.status == 2 && unterminated.stderr == "cdhist: line 1: unterminated ' quote\n")
        // COMMAND --help and -h show the command's help, as help COMMAND does, whole.
        let help = try CLI.run([store, "-c", "help actors"])
        for asked in ["actors --help", "actors -h", "actors --defaults x.plist --help"] {
            let r = try CLI.run([store, "-c", asked])
            #expect(r.status == 0 && r.stderr.isEmpty && r.stdout == help.stdout, "\(asked): \(r.stderr)")
        }
        #expect(help.stdout.hasPrefix("OVERVIEW: Show each actor's merge state") && help.stdout.contains("--defaults"))
        // A mistyped command is named with the one meant, as in one-shot mode.
        let typo = try CLI.run([store, "-c", "actrs"])
        #expect(
            typo.status == 2
                && typo.stderr
                    == "cdhist: line 1: unknown command 'actrs'; did you mean 'actors'? type help for the list\n"
        )
        #expect(try CLI.run([store, "-c", "defualts"]).stderr.contains("did you mean 'defaults'?"))
    }

    @Test func sessionCommands() throws {
        let other = Repository.fixtures + "/Purged/Tasks.sqlite"
        let r = try CLI.run([
            store, "-c", "open \(other)", "-c", "info --format json", "-c",
            "defaults \(Repository.fixtures)/Purged/defaults.plist",
            "-c", "model \(Repository.fixtures)/NoModelCache/Tasks.xcdatamodel", "-c", "format csv", "-c", "help", "-c",
            "help purge",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"firstTransactionNumber\":21"))
        #expect(!r.stdout.contains("shared defaults:") && !r.stdout.contains("model: "))
        #expect(r.stdout.contains("Commands (the store is implied):"))
        #expect(r.stdout.contains("--prune-strings"))
        // Attached defaults reach actors.
        let actors = try CLI.run([
            store, "-c", "defaults \(Repository.fixtures)/MergeState/phtk.plist", "-c",
            "actors --format json --now 2025-03-06",
        ])
        #expect(actors.stdout.contains("\"positions\":[{\"source\":\"\(Repository.fixtures)/MergeState/phtk.plist"))
    }
}

private let lineRunnerStoreFirst: Set<String> = [
    "info", "transactions", "changes", "show", "entities", "authors", "export", "purge", "actors",
]

private func quote(_ word: String) -> String {
    word.contains(" ") ? "'\(word)'" : word
}

/// The interactive REPL driven through a real pseudo-terminal (tmux).
@Suite(.tags(.slow), .serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct InteractiveTests {
    final class Screen {
        let name = "cdhist-test-\(UUID().uuidString.prefix(8))"
        let state: TemporaryDirectory
        private var socket = ""

        /// A session on `store`; `pager` nil runs it without PAGER (its default pager).
        init(store: String, state: TemporaryDirectory, pager: String? = "cat", rows: Int = 50) throws {
            self.state = state
            let binary = CLI.products.appendingPathComponent("cdhist").path
            let pagerSetting = pager.map { "PAGER='\($0)'" } ?? "-u PAGER"
            let command =
                """
                env -u CDHIST_FORMAT \(pagerSetting) XDG_STATE_HOME=\(state.path) \(binary) \(store); echo \
                EXIT=$?; sleep 60
                """
            // Through Subprocess, not Process: the tmux server this starts outlives the call.
            let started = try tmux(["new-session", "-d", "-s", name, "-x", "160", "-y", String(rows), command])
            #expect(started.status == 0, "tmux new-session: \(started.stderr)")
            socket = try tmux(["display-message", "-p", "#{socket_path}"]).stdout.trimmingCharacters(in: .newlines)
            try waitFor("transactions)>")
        }

        /// Runs tmux on this screen's own server (`-L`): one server per screen, so the server a
        /// finished screen's kill takes down is never the one the next screen starts in.
        @discardableResult
        func tmux(_ arguments: [String]) throws -> CLI.Result {
            try CLI.run(["-L", name] + arguments, executable: "/usr/bin/tmux")
        }

        /// Sends key names (Enter, Tab, Up, C-c, C-d, C-u).
        func send(_ keys: String...) throws {
            try tmux(["send-keys", "-t", name] + keys)
        }

        /// Types `text` literally.
        func type(_ text: String) throws {
            try tmux(["send-keys", "-t", name, "-l", "--", text])
        }

        func text() throws -> String {
            // -J: a line the pane wrapped comes back whole, so that a message printed after output
            // cut mid-line (an interrupted export) is found wherever the wrap falls. -J keeps
            // trailing blanks, which are dropped as the plain capture drops them.
            let joined = try tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", name]).stdout
            return joined.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.lastIndex { $0 != " " }.map { line[...$0] } ?? ""
            }.joined(separator: "\n")
        }

        /// Waits until the screen contains `needle` (at most 20 s).
        @discardableResult
        func waitFor(_ needle: String, count: Int = 1) throws -> String {
            for _ in 0..<200 {
                let screen = try text()
                if screen.components(separatedBy: needle).count - 1 >= count { return screen }
                usleep(100_000)
            }
            let screen = try text()
            Issue.record("timed out waiting for \(needle.debugDescription); screen:\n\(screen)")
            return screen
        }

        /// Waits until the last line on the screen is `line` (at most 20 s).
        func waitForLastLine(_ line: String) throws {
            for _ in 0..<200 {
                if try text().split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
                    == Substring(line)
                {
                    return
                }
                usleep(100_000)
            }
            Issue.record("timed out waiting for a last line \(line.debugDescription); screen:\n\(try text())")
        }

        deinit {
            _ = try? tmux(["kill-server"])
            if !socket.isEmpty { try? FileManager.default.removeItem(atPath: socket) }
        }
    }

    let store = Repository.fixtures + "/AppGroup/Tasks.sqlite"

    /// A completed value runs as completed: one with spaces, one beginning with `-` (Photos'
    /// context names), are inserted quoted, and the quoted value is the option's.
    @Test func completedValuesWithSpacesAndALeadingDashRun() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("Quoted.sqlite")
        var fixture = Scenarios.all[0].store
        fixture.journalMode = .rollback
        fixture.transactions[0].contextName = "-[Cache load: now]"
        fixture.transactions[1].contextName = "import queue"
        fixture.transactions[2].contextName = "Shared (one)"
        fixture.transactions[3].contextName = "Shared (two)"
        try StoreWriter.write(fixture, to: path)
        let s = try Screen(store: path, state: dir)
        try s.type("transactions --format csv --context -[Ca")
        try s.send("Tab")
        try s.waitFor("--context '-[Cache load: now]'")
        try s.send("Enter")
        try s.waitFor("1,2025-03-03T09:00:00.000Z")
        try s.type("transactions --format csv --context imp")
        try s.send("Tab")
        try s.waitFor("--context 'import queue'")
        try s.send("Enter")
        let screen = try s.waitFor(",import queue,")
        #expect(!screen.contains("Missing value") && !screen.contains("Error"), "\(screen)")
        // Several values with blanks: their common start opens a quote; GNU Readline keeps the quoted
        // word whole, so typing on and Tab complete it (libedit splits words at blanks, quoted or not).
        if try CLI.run(["--version"]).stdout.contains("GNU Readline") {
            try s.type("transactions --format csv --context Sh")
            try s.send("Tab")
            try s.waitFor("--context 'Shared (")
            try s.type("t")
            try s.send("Tab")
            try s.waitFor("--context 'Shared (two)'")
            try s.send("Enter")
            try s.waitFor(",Shared (two),")
        }
        // A script reads the quoted words the same way; a quoted `'` inside too.
        let script = try CLI.run([
            path, "-c", "transactions --format csv --context '-[Cache load: now]'", "-c",
            "transactions --format csv --context 'it'\\''s'",
        ])
        // (No context is named it's: the note shows the value as it was read.)
        #expect(
            script.status == 0 && script.stderr == "cdhist: note: --context 'it's' matches no transaction\n",
            "\(script.stderr)")
        #expect(script.stdout.split(separator: "\n").filter { $0.hasPrefix("1,") }.count == 1, "\(script.stdout)")
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    /// `open` completes a name through a folder with a space in it, quoted as the line reads it back.
    @Test func openCompletesThroughAFolderWithASpace() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("My Folder"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: store, toPath: dir.file("My Folder/Other.sqlite"))
        let s = try Screen(store: store, state: dir)
        // GNU Readline keeps a quoted word whole: names are quoted; libedit splits at blanks, quoted
        // or not, but keeps an escaped blank: names are escaped.
        let quotes = try CLI.run(["--version"]).stdout.contains("GNU Readline")
        try s.type("open " + dir.file("My"))
        try s.send("Tab")
        try s.waitFor(quotes ? "> open '\(dir.file("My Folder/"))" : "> open \(dir.file("My\\ Folder/"))")
        try s.send("Tab")
        try s.waitFor(
            quotes ? "> open '\(dir.file("My Folder/Other.sqlite"))'" : "> open \(dir.file("My\\ Folder/Other.sqlite"))"
        )
        try s.send("Enter")
        try s.type("info")
        try s.send("Enter")
        try s.waitFor("Store:             \(dir.file("My Folder/Other.sqlite"))")
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    @Test func typingCompletionAndHistory() throws {
        let state = try TemporaryDirectory()
        do {
            let s = try Screen(store: store, state: state)
            try s.type("info")
            try s.send("Enter")
            try s.waitFor("Transactions:      34 (#1…#34)")
            // Tab completes a command, an option and a value from the store.
            try s.type("tra")
            try s.send("Tab")
            try s.waitFor("> transactions")
            try s.type("--aut")
            try s.send("Tab")
            try s.waitFor("transactions --author")
            try s.type("wid")
            try s.send("Tab")
            try s.waitFor("transactions --author widget")
            try s.send("Enter")
            try s.waitFor("TasksWidget", count: 7)
            try s.type("changes --entity Pho")
            try s.send("Tab")
            try s.waitFor("changes --entity Photo")
            try s.type("--type upd")
            try s.send("Tab")
            try s.waitFor("--type update")
            try s.send("Enter")
            try s.waitFor("filename, height, width")
            try s.send("C-d")
            try s.waitFor("EXIT=0")
        }
        // Up arrow recalls the last command after a restart.
        let s = try Screen(store: store, state: state)
        try s.send("Up")
        try s.waitFor("> changes --entity Photo --type update")
        try s.send("C-u")
        try s.type("authors --by author")
        try s.send("Enter")
        try s.waitFor("NSCloudKitMirroringDelegate.setup")
        // GNU Readline keeps lines as typed; libedit encodes them (strvis: a space is \040).
        let history = try String(contentsOfFile: state.path + "/cdhist/history", encoding: .utf8)
            .replacingOccurrences(of: "\\040", with: " ")
        #expect(history.contains("info\n") && history.contains("changes --entity Photo --type update"))
    }

    /// Completion reads options from each command's help: timeline and report need nothing of their own.
    @Test func timelineAndReportComplete() throws {
        let state = try TemporaryDirectory()
        let s = try Screen(store: store, state: state)
        try s.type("timel")
        try s.send("Tab")
        try s.waitFor("> timeline")
        try s.type("--as")
        try s.send("Tab")
        try s.waitFor("timeline --ascii")
        try s.type("--strat")
        try s.send("Tab")
        try s.waitFor("timeline --ascii --strategy")
        try s.type("swiftlee --wid")
        try s.send("Tab")
        try s.waitFor("--strategy swiftlee --width")
        try s.type("100")
        try s.send("Enter")
        try s.waitFor("transactions in one column")
        try s.type("repo")
        try s.send("Tab")
        try s.waitFor("> report")
        try s.type("--ou")
        try s.send("Tab")
        try s.waitFor("report --out")
        try s.send("C-u")
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/less")))
    func longOutputGoesThroughThePager() throws {
        let state = try TemporaryDirectory()
        let s = try Screen(store: store, state: state, pager: "less -FRX", rows: 20)
        try s.type("changes")
        try s.send("Enter")
        // less shows its ':' prompt: 67 changes do not fit 20 rows.
        try s.waitFor("\n:")
        try s.send("q")
        try s.waitFor("transactions)>", count: 2)
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    /// Quitting the pager before the output ends (q, or Ctrl-C, which ends the default
    /// `less -FRXK`) stops the command and returns to the prompt: the session goes on. The
    /// output is larger than a pipe holds, so the command is still writing when the pager goes.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/less")))
    func quittingThePagerEarlyReturnsToThePrompt() throws {
        let dir = try TemporaryDirectory()
        let big = dir.file("Pages.sqlite")
        let write = try CLI.run(
            ["--transactions", "3000", "--changes-per-transaction", "5", "--out", big], executable: "cdhist-fixtures")
        #expect(write.status == 0)
        let s = try Screen(store: big, state: dir, pager: nil, rows: 20)
        for (round, quit) in ["q", "C-c"].enumerated() {
            try s.type("changes")
            try s.send("Enter")
            try s.waitForLastLine(":")
            try s.send(quit)
            try s.waitFor("Pages.sqlite (3000 transactions)>", count: round + 2)
        }
        #expect(try !s.text().contains("interrupted"))
        // Output that fits the screen: less -F quits by itself.
        try s.type("transactions --after tx:2999 --format csv")
        try s.send("Enter")
        try s.waitFor("\n3000,")
        try s.waitFor("Pages.sqlite (3000 transactions)>", count: 4)
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    @Test func objectIDsComplete() throws {
        let state = try TemporaryDirectory()
        let s = try Screen(store: Repository.fixtures + "/Later/Tasks.sqlite", state: state)
        try s.type("object Pro")
        try s.send("Tab")
        // `Project/p`, with no space after it: the key follows.
        try s.waitFor("object Project/p")
        try s.send("Tab")
        try s.send("Tab")
        try s.waitFor("Project/p1")
        try s.type("1")
        try s.send("Enter")
        try s.waitFor("ZPROJECT row 1")
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    @Test func watchRunsUntilCtrlCAndTheSessionSeesTheNewTransactions() throws {
        let dir = try TemporaryDirectory()
        let copy = try WatchTests.copy(store, into: dir)
        let s = try Screen(store: copy, state: dir)
        try s.type("watch --labels")
        try s.send("Enter")
        usleep(1_000_000)
        let writer = try CLI.run(
            ["live-writer", copy, "--transactions", "3", "--interval-ms", "50"], executable: "cdhist-fixtures")
        #expect(writer.status == 0)
        try s.waitFor("#37  ")
        #expect(try s.text().contains("    delete  Task/p24 'Task 24'  title=\"Task 24\""))
        try s.send("C-c")
        // Back at the prompt, which counts what the app committed meanwhile.
        try s.waitFor("Tasks.sqlite (37 transactions)>")
        try s.type("transactions --after tx:35 --format csv")
        try s.send("Enter")
        try s.waitFor("37,")
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }

    /// A session on a generated store of `transactions` transactions (5 changes each), `Big.sqlite` in `dir`.
    private func bigStoreSession(_ transactions: Int, in dir: TemporaryDirectory) throws -> Screen {
        let big = dir.file("Big.sqlite")
        let write = try CLI.run(
            ["--transactions", String(transactions), "--changes-per-transaction", "5", "--out", big],
            executable: "cdhist-fixtures")
        #expect(write.status == 0)
        return try Screen(store: big, state: dir)
    }

    @Test func ctrlCInterruptsALongExportAndCtrlDExits() throws {
        let dir = try TemporaryDirectory()
        let s = try bigStoreSession(60_000, in: dir)
        try s.type("export")
        try s.send("Enter")
        try s.waitFor("changedObjectID")
        usleep(300_000)
        try s.send("C-c")
        try s.waitFor("Big.sqlite: interrupted")
        // The export scrolled the first prompt away: this is the new one.
        let screen = try s.waitFor("transactions)>")
        #expect(
            screen.components(separatedBy: "\n").last { !$0.isEmpty }?.hasPrefix("Big.sqlite (60000 transactions)>")
                == true)
        try s.type("info --format csv")
        try s.send("Enter")
        try s.waitFor(",transactionCount,60000,")
        // Ctrl-C at a non-empty prompt clears the line; twice at an empty one quits.
        try s.type("transactions")
        // Ctrl-C only once the line editor shows what was typed (a busy machine can be slow to).
        try s.waitFor("transactions)> transactions")
        try s.send("C-c")
        try s.waitFor("transactions^C")
        // The line was emptied: what is typed next runs alone.
        try s.type("info --format csv")
        try s.send("Enter")
        try s.waitFor(",transactionCount,60000,", count: 2)
        // Ctrl-L clears the screen, leaving the prompt.
        try s.send("C-l")
        try s.waitForLastLine("Big.sqlite (60000 transactions)>")
        let visible = try s.tmux(["capture-pane", "-p", "-t", s.name]).stdout
        #expect(!visible.contains("Transactions,60000"), "\(visible)")
        try s.send("C-c")
        try s.waitFor("(Ctrl-C again to quit, or Ctrl-D)")
        try s.send("C-c")
        try s.waitFor("EXIT=0")
    }

    /// Ctrl-C while a purge writes, in a session (which owns Ctrl-C): the purge stops at its next
    /// safe point as it does for the signal outside a session, and the prompt comes back.
    @Test func ctrlCStopsAPurgeInASession() throws {
        let dir = try TemporaryDirectory()
        let s = try bigStoreSession(100_000, in: dir)
        try s.type("purge --before tx:75000 --execute --allow-expire --vacuum --format json")
        try s.send("Enter")
        try s.waitFor("[y/N]")
        try s.type("y")
        try s.send("Enter")
        try s.waitFor("backing up to")
        try s.send("C-c")
        try s.waitFor("interrupted by SIGINT (Ctrl-C)")
        // The prompt again, with the store as the purge left it: as it was, or purged.
        var screen = try s.waitFor("transactions)>", count: 2)
        // Before the commit nothing was deleted and the backup was removed; after it, VACUUM was left out.
        // Wrapped at the terminal's width: compared without white space.
        screen = screen.filter { !$0.isWhitespace }
        func shows(_ text: String) -> Bool { screen.contains(text.filter { !$0.isWhitespace }) }
        let unchanged =
            shows("nothing was deleted: the store is as it was and the backup was removed")
            && shows("Big.sqlite (100000 transactions)>")
        let purged = shows("VACUUM was not run") && shows("Big.sqlite (25001 transactions)>")
        #expect(unchanged || purged, "\(screen)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(
            !names.contains { $0.hasSuffix(".partial") || $0.hasSuffix("-journal") || $0.hasSuffix(".cdhist-purging") },
            "\(names)")
        try s.send("C-d")
        try s.waitFor("EXIT=0")
    }
}
