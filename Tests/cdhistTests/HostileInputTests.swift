import Foundation
import GRDB
import HistoryKit
import TestSupport
import Testing

/// What a store, a plist or a path can do to the user: the targets of --out.
@Suite(.tags(.slow)) struct HostileInputTests {
    /// A real store when the shared stores are here, else the demo store, copied into `dir`.
    private func storeCopy(in dir: TemporaryDirectory) throws -> String {
        let source = RealStores.available ? RealStores.photos15 : Repository.fixtures + "/AppGroup/Tasks.sqlite"
        if !RealStores.available {
            print("NOTICE: shared real stores not found; --out targets are tried on the demo store")
        }
        return try copy(source, into: dir)
    }

    private func copy(_ source: String, into dir: TemporaryDirectory) throws -> String {
        let name = URL(fileURLWithPath: source).lastPathComponent
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: dir.file(name + suffix))
        }
        return dir.file(name)
    }

    /// Names of `store`'s files made in `dir`: a hard link, links to its `-wal`, `-shm` and
    /// `-journal` (dangling when those do not exist), a chain of two links, a link to a link
    /// in another folder, and `..` through a folder and through a link to one.
    private func aliases(of store: String, in dir: TemporaryDirectory) throws -> [String] {
        let fm = FileManager.default
        let name = URL(fileURLWithPath: store).lastPathComponent
        try fm.linkItem(atPath: store, toPath: dir.file("hard-link"))
        for suffix in ["-wal", "-shm", "-journal"] {
            try fm.createSymbolicLink(atPath: dir.file("link" + suffix), withDestinationPath: store + suffix)
        }
        try fm.createSymbolicLink(atPath: dir.file("chain-2"), withDestinationPath: "link-wal")
        try fm.createSymbolicLink(atPath: dir.file("chain-1"), withDestinationPath: dir.file("chain-2"))
        try fm.createDirectory(atPath: dir.file("sub/deeper"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir.file("sub/deeper/up"), withDestinationPath: "../../" + name + "-journal")
        try fm.createSymbolicLink(atPath: dir.file("sub/to-sub"), withDestinationPath: dir.file("sub/deeper"))
        return [
            name, name + "-wal", name + "-shm", name + "-journal", "sub/../" + name,
            "sub/to-sub/../../" + name + "-wal",
            "hard-link", "link-wal", "link-shm", "link-journal", "chain-1", "sub/deeper/up", "sub/to-sub/up",
        ]
    }

    /// On the demo store (no `-wal`, `-shm` or `-journal`: each link dangles) and on a real
    /// store (its `-wal` and `-shm` exist), every name of one of its files is refused.
    @Test func exportAndReportRefuseEveryFileOfTheStoreTheyRead() throws {
        var sources = [Repository.fixtures + "/AppGroup/Tasks.sqlite"]
        if RealStores.available { sources.append(RealStores.photos15) }
        for source in sources {
            let dir = try TemporaryDirectory()
            let store = try copy(source, into: dir)
            let targets = try aliases(of: store, in: dir)
            let before = try DirectoryState(dir.path)
            for target in targets {
                for command in [["export", store, "--limit", "1"], ["report", store]] {
                    let r = try CLI.run(command + ["--out", dir.file(target)])
                    #expect(r.status == 2, "\(command[0]) --out \(target): \(r.stderr)")
                    #expect(
                        r.stderr.hasPrefix("cdhist: \(dir.file(target)): cannot write ("),
                        "\(command[0]) --out \(target): \(r.stderr)")
                    #expect(
                        try DirectoryState(dir.path) == before,
                        "\(command[0]) --out \(target) changed or created a file")
                }
            }
        }
    }

    /// The files a command reads besides the store: the `--labels-from` store (and its
    /// `-wal`'s place), defaults plists, token files of `--token` and of `--after token:FILE`.
    @Test func outRefusesTheOtherFilesACommandReads() throws {
        let dir = try TemporaryDirectory()
        let store = try copy(Repository.fixtures + "/MergeState/Tasks.sqlite", into: dir)
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.file("old"), withIntermediateDirectories: false)
        try fm.copyItem(atPath: store, toPath: dir.file("old/Tasks.sqlite"))
        try fm.copyItem(atPath: Repository.fixtures + "/MergeState/phtk.plist", toPath: dir.file("defaults.plist"))
        try fm.copyItem(atPath: Repository.fixtures + "/MergeState/token.data", toPath: dir.file("app.token"))
        try fm.createSymbolicLink(atPath: dir.file("old-wal"), withDestinationPath: "old/Tasks.sqlite-wal")
        try fm.createSymbolicLink(atPath: dir.file("token-link"), withDestinationPath: "app.token")
        let before = try DirectoryState(dir.path)
        let cases: [([String], String)] = [
            (["export", store, "--labels-from", dir.file("old/Tasks.sqlite")], "old/Tasks.sqlite"),
            (["export", store, "--labels-from", dir.file("old/Tasks.sqlite")], "old-wal"),
            (["export", store, "--after", "token:" + dir.file("app.token")], "token-link"),
            (["report", store, "--defaults", dir.file("defaults.plist")], "defaults.plist"),
            (["report", store, "--token", dir.file("app.token")], "token-link"),
            (["report", store, "--before", "token:" + dir.file("app.token")], "app.token"),
        ]
        for (command, target) in cases {
            let r = try CLI.run(command + ["--out", dir.file(target)])
            #expect(
                r.status == 2 && r.stderr.hasPrefix("cdhist: \(dir.file(target)): cannot write ("),
                "\(command) --out \(target): \(r.stderr)")
            #expect(try DirectoryState(dir.path) == before, "\(command) --out \(target) changed or created a file")
        }
    }

    @Test func exportWritesThroughDevicesAndPipesAndKeepsAReplacedFilesMode() throws {
        let dir = try TemporaryDirectory()
        let store = try storeCopy(in: dir)
        let null = try CLI.run(["export", store, "--out", "/dev/null", "--limit", "2"])
        #expect(null.status == 0 && null.stderr.isEmpty)
        #expect(FileStatus("/dev/null")?.kind == .characterDevice)
        #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
        let reader = try CLI.start([dir.file("fifo")], executable: "/bin/cat")
        let fifo = try CLI.run(["export", store, "--out", dir.file("fifo"), "--limit", "2"])
        #expect(fifo.status == 0, "\(fifo.stderr)")
        let read = try reader.wait(timeout: 30)
        #expect(String(decoding: read.stdout, as: UTF8.self).split(separator: "\n").count == 2)
        #expect(FileStatus(dir.file("fifo"))?.kind == .fifo)
        let privateFile = dir.file("private.ndjson")
        #expect(
            FileManager.default.createFile(
                atPath: privateFile, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o600]))
        let replaced = try CLI.run(["export", store, "--out", privateFile, "--limit", "2"])
        #expect(replaced.status == 0)
        #expect(FileStatus(privateFile)?.permissions == 0o600)
        #expect(try String(contentsOfFile: privateFile, encoding: .utf8).split(separator: "\n").count == 2)
        // Through a link, the file it names is replaced and the link kept.
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.ndjson"), withDestinationPath: privateFile)
        let linked = try CLI.run(["export", store, "--out", dir.file("link.ndjson"), "--limit", "1"])
        #expect(
            linked.status == 0
                && (try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("link.ndjson"))) == privateFile)
        #expect(try String(contentsOfFile: privateFile, encoding: .utf8).split(separator: "\n").count == 1)
    }
}

/// Inputs that are no regular file, or too large, are refused at once; links are followed.
@Suite struct InputFileTests {
    let store = Repository.fixtures + "/MergeState/Tasks.sqlite"

    @Test func fifosDevicesAndHugeFilesAreRefusedWithinASecond() throws {
        let dir = try TemporaryDirectory()
        #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
        let sparse = dir.file("sparse.plist")
        #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
        #expect(truncate(sparse, 3 << 30) == 0)
        let cases: [([String], String)] = [
            (["actors", store, "--defaults", dir.file("fifo")], "not a regular file but a FIFO (named pipe)"),
            (["actors", store, "--defaults", "/dev/zero"], "not a regular file but a character device"),
            (["actors", store, "--defaults", sparse], "larger than 256 MiB"),
            (["actors", store, "--token", "x=" + dir.file("fifo")], "not a regular file but a FIFO"),
            (["actors", store, "--token", "/dev/zero"], "not a regular file but a character device"),
            (["check", store, "--config", "/dev/zero"], "not a regular file but a character device"),
            (["check", store, "--config", dir.file("fifo")], "not a regular file but a FIFO"),
            (["info", dir.file("fifo")], "not a regular file but a FIFO"),
            (["info", "/dev/zero"], "not a regular file but a character device"),
            (["purge", store, "--before", "token:/dev/zero"], "not a regular file but a character device"),
        ]
        for (arguments, expected) in cases {
            let started = Date()
            let r = try CLI.run(arguments)
            #expect(r.status == 2 && r.stderr.contains(expected), "\(arguments): \(r.stderr)")
            #expect(Date().timeIntervalSince(started) < 10, "\(arguments) took too long")
        }
    }

    @Test func aStoreAndAPlistThroughLinksWorkAndKeepTheirModes() throws {
        let dir = try TemporaryDirectory()
        let real = dir.file("real")
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        for suffix in ["", "-wal", "-shm"]
        where FileManager.default.fileExists(atPath: Repository.fixtures + "/WALPending/Tasks.sqlite" + suffix) {
            try FileManager.default.copyItem(
                atPath: Repository.fixtures + "/WALPending/Tasks.sqlite" + suffix,
                toPath: real + "/Tasks.sqlite" + suffix)
        }
        try FileManager.default.copyItem(
            atPath: Repository.fixtures + "/MergeState/phtk.plist", toPath: real + "/phtk.plist")
        #expect(chmod(real + "/phtk.plist", 0o600) == 0 && chmod(real + "/Tasks.sqlite", 0o600) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("store.sqlite"), withDestinationPath: real + "/Tasks.sqlite")
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("defaults.plist"), withDestinationPath: real + "/phtk.plist")
        // The WAL beside the real file is read through the link: all 34 transactions, not the main file's 26.
        let through = try CLI.run(["transactions", dir.file("store.sqlite"), "--format", "ndjson"])
        #expect(through.status == 0 && through.lines.count == 34, "\(through.stderr)")
        let repair = try CLI.run([
            "repair-defaults", dir.file("defaults.plist"), "--actor", "widget", "--to", "2025-03-04", "--execute",
            "--backup", dir.file("backup.plist"),
        ])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("defaults.plist"))) == real
                + "/phtk.plist")
        #expect(
            FileContents.read(real + "/phtk.plist") != FileContents.read(Repository.fixtures + "/MergeState/phtk.plist")
        )
        #expect(
            FileStatus(real + "/phtk.plist")?.permissions == 0o600
                && FileStatus(dir.file("backup.plist"))?.permissions == 0o600)
        let purge = try CLI.run([
            "purge", dir.file("store.sqlite"), "--before", "tx:3", "--execute", "--yes", "--backup",
            dir.file("backup.sqlite"),
        ])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(FileStatus(dir.file("backup.sqlite"))?.permissions == 0o600)
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("store.sqlite"))) == real
                + "/Tasks.sqlite")
        let journal = try CLI.run([
            "purge", dir.file("store.sqlite"), "--before", "tx:5", "--execute", "--yes", "--backup",
            real + "/Tasks.sqlite-journal",
        ])
        #expect(journal.status == 2 && journal.stderr.contains("a file of the store"), "\(journal.stderr)")
        #expect(!FileManager.default.fileExists(atPath: real + "/Tasks.sqlite-journal"))
    }
}

/// Strings planted in every string table and in the model cache of a copy of a real store
/// never reach the terminal as control sequences; JSON keeps them exactly.
@Suite struct HostileTextTests {
    /// OSC 0 (title), OSC 52 (clipboard), a screen clear, an OSC 8 link, CSI as C1, NEL and a bidi override.
    static let hostile =
        """
        \u{1B}]0;PWNED\u{07}\u{1B}]52;c;SGVsbG8=\u{07}\u{1B}[2J\u{1B}]8;;http://evil\u{1B}\\link\u{1B}]8;;\u{1B}\\\u{9B}31m\u{85}\u{202E}evil
        """

    /// A copy of the real Photos store (or the demo store) with `hostile` appended to every
    /// transaction string, entity name (in Z_PRIMARYKEY and the cached model alike), attribute
    /// name and tombstone value.
    private func plantedStore(in dir: TemporaryDirectory) throws -> String {
        let source = RealStores.available ? RealStores.photos15 : Repository.fixtures + "/AppGroup/Tasks.sqlite"
        if !RealStores.available {
            print("NOTICE: shared real stores not found; hostile text is planted in the demo store")
        }
        let store = dir.file("planted.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: store + suffix)
        }
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = ZNAME || ?", arguments: [Self.hostile])
            try db.execute(sql: "UPDATE ACHANGE SET ZTOMBSTONE0 = ? WHERE ZCHANGETYPE = 2", arguments: [Self.hostile])
            let blob = [UInt8](try #require(try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE")))
            let model = try ModelLoader.fromModelCache(blob, source: "planted")
            let renamed = ManagedObjectModel(
                entities: model.entities.map { entity in
                    var e = entity
                    e.name += Self.hostile
                    e.superentityName = e.superentityName.map { $0 + Self.hostile }
                    e.properties = e.properties.map { p in
                        var p = p
                        if p.attribute != nil { p.name += Self.hostile }
                        return p
                    }
                    return e
                }, versionIdentifiers: model.versionIdentifiers)
            try db.execute(
                sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [Data(ModelArchiveEncoder.modelCache(renamed))]
            )
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = Z_NAME || ?", arguments: [Self.hostile])
        }
        try queue.close()
        return store
    }

    /// ESC, BEL, a C1 control or a bidi override in `text`.
    private func controls(in text: Data) -> Bool {
        let s = String(decoding: text, as: UTF8.self)
        return s.unicodeScalars.contains {
            $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) || $0.value == 0x202E
        }
    }

    @Test func noCommandSendsAStoresControlCharactersToTheTerminal() throws {
        let dir = try TemporaryDirectory()
        let store = try plantedStore(in: dir)
        let plist = dir.file("defaults.plist")
        try Data(
            PropertyList.encodeBinary(
                .dictionary(["PersistentHistoryTrackingKit.lastToken.app" + Self.hostile: .date(700_000_000)]))
        )
        .write(to: URL(fileURLWithPath: plist))
        let env = ["NO_COLOR": "1", "COLUMNS": "80"]
        let commands: [[String]] = [
            ["info", store], ["transactions", store], ["changes", store, "--limit", "300"], ["show", store, "tx:2"],
            ["entities", store],
            ["authors", store], ["timeline", store], ["actors", store, "--defaults", plist],
            ["check", store, "--defaults", plist],
            ["purge", store, "--before", "tx:5", "--defaults", plist], ["diff", store, store], ["cloudkit", store],
            ["watch", store, "--since", "tx:1", "--limit", "2"],
            ["repl", store, "-c", "authors --format table", "-c", "changes --limit 20 --format table"],
            ["info", dir.file("new\nline\u{1B}]0;x\u{07}.sqlite")],
        ]
        for arguments in commands {
            let r = try CLI.run(arguments + (arguments[0] == "repl" ? [] : ["--format", "table"]), environment: env)
            #expect(
                !controls(in: Data(r.stdout.utf8)) && !controls(in: Data(r.stderr.utf8)),
                "\(arguments[0]): \(r.stdout.prefix(300)) \(r.stderr.prefix(300))")
            #expect(r.status != 0 || !r.stdout.isEmpty, "\(arguments[0]) printed nothing: \(r.stderr)")
        }
        let missing = try CLI.run(["info", dir.file("new\nline.sqlite")], environment: env)
        #expect(
            missing.stderr.components(separatedBy: "\n").count == 2 && missing.stderr.contains("new\\nline.sqlite"),
            "\(missing.stderr)")
        // JSON keeps the strings exactly.
        let json = try CLI.run(["authors", store, "--format", "json"]).json()
        let authors = (json["authors"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
        #expect(authors.contains { $0.hasSuffix(Self.hostile) })
        // The report shows them as escapes and closes the override.
        let report = try CLI.run(["report", store, "--defaults", plist, "--out", dir.file("r.html")])
        #expect(report.status == 0, "\(report.stderr)")
        let html = try String(contentsOfFile: dir.file("r.html"), encoding: .utf8)
        #expect(
            !html.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) })
        #expect(html.contains("\\e]0;PWNED\\a") && html.contains("\u{202E}evil\u{202C}"))
    }
}

/// Spreadsheet formulas planted in a copy of a real store are written as text in every CSV output.
@Suite struct CSVInjectionTests {
    static let formulas = [
        "=HYPERLINK(\"http://evil\",\"x\")", "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3+cmd|' /C calc'!A0", "\tTAB",
        "\rCR",
    ]

    /// The cells of RFC 4180 `text`.
    private func cells(_ text: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var wasQuote = false
        for c in text {
            if quoted {
                if c == "\"" {
                    quoted = false
                    wasQuote = true
                } else {
                    cell.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                if wasQuote { cell.append("\"") }
                quoted = true
            case ",", "\n":
                cells.append(cell)
                cell = ""
            default: cell.append(c)
            }
            wasQuote = false
        }
        return cells + [cell]
    }

    @Test func everyCSVOutputWritesFormulasAsText() throws {
        let dir = try TemporaryDirectory()
        let source = RealStores.available ? RealStores.photos15 : Repository.fixtures + "/AppGroup/Tasks.sqlite"
        let store = dir.file("formulas.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: store + suffix)
        }
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING ORDER BY Z_PK")
            for (i, id) in ids.enumerated() {
                try db.execute(
                    sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = ? WHERE Z_PK = ?",
                    arguments: [Self.formulas[i % Self.formulas.count] + "\(i)", id])
            }
        }
        try queue.close()
        let commands: [[String]] = [
            ["export", store], ["transactions", store], ["changes", store, "--limit", "200"], ["authors", store],
            ["timeline", store], ["watch", store, "--since", "tx:1", "--limit", "3"], ["info", store],
            ["purge", store, "--before", "tx:5"],
        ]
        for arguments in commands {
            let safe = try CLI.run(arguments + ["--format", "csv"])
            #expect(safe.status == 0, "\(arguments[0]): \(safe.stderr)")
            let evaluated = cells(safe.stdout).filter { CSVInjectionTests.evaluates($0) }
            #expect(evaluated.isEmpty, "\(arguments[0]): \(evaluated.prefix(3))")
            let raw = try CLI.run(arguments + ["--format", "csv", "--csv-raw"])
            #expect(raw.status == 0)
            if !["info", "purge", "changes"].contains(arguments[0]) {
                #expect(cells(raw.stdout).contains { $0.hasPrefix("=HYPERLINK") }, "\(arguments[0]) --csv-raw")
                #expect(cells(safe.stdout).contains { $0.hasPrefix("'=HYPERLINK") }, "\(arguments[0])")
            }
        }
        #expect(cells("-5,+1.5e3,-,'=x").filter(Self.evaluates).isEmpty)
        #expect(cells("-x,=1").filter(Self.evaluates).count == 2)
    }

    /// Whether a spreadsheet would evaluate `cell`: it begins with =, +, -, @, a tab or CR and is not a number or a lone sign.
    static func evaluates(_ cell: String) -> Bool {
        guard let first = cell.first, "=+-@\t\r".contains(first), cell.count > 1 else { return false }
        return Double(cell) == nil || first == "="
    }
}
