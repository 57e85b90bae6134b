import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing

/// Purges executed on copies: the preview's numbers are what is removed, the
/// store stays valid, other tables are untouched, crashes leave old or new content.
@Suite(.tags(.slow), .serialized) struct PurgeTests {
    /// Copies a fixture folder (or a real store's files) into a fresh directory.
    private func copy(_ folder: String, prefix: String = "") throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix(prefix) {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: dir.file(name))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir.file(name))
        }
        return dir
    }

    private func tables(_ path: String) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        var current = ""
        for line in try LogicalDump.of(path) {
            if line.hasPrefix("table ") {
                current = String(line.dropFirst(6).prefix { $0 != ":" })
                result[current] = [line]
            } else {
                result[current, default: []].append(line)
            }
        }
        return result
    }

    private func numbers(_ path: String) throws -> [Int64] {
        let q = try LogicalDump.readOnlyQueue(path)
        defer { try? q.close() }
        return try q.read { try Int64.fetchAll($0, sql: "SELECT Z_PK FROM ATRANSACTION ORDER BY Z_PK") }
    }

    /// Runs preview then execute for `args`, and checks everything the issue asks.
    private func purgeAndCheck(store: String, args: [String], prune: Bool = false) throws {
        let beforeTables = try tables(store)
        let beforeNumbers = try numbers(store)
        // Which transactions the same selection lists (the preview's own query, read through `transactions`).
        let preview = try CLI.run(["purge", store] + args)
        #expect(preview.status == 0, "\(args): \(preview.stderr)")
        let p = try preview.json()
        let count = try #require(p["transactionCount"] as? Int)
        let changes = try #require(p["changeCount"] as? Int)
        #expect(try tables(store) == beforeTables, "the preview changed the store")

        let backup = store + ".bak-test"
        let run = try CLI.run(
            ["purge", store] + args + ["--execute", "--yes", "--backup", backup, "--allow-expire"]
                + (prune ? ["--prune-strings"] : []))
        #expect(run.status == 0, "\(args): \(run.stderr)")
        let docs = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        guard count > 0 else {
            #expect(try tables(store) == beforeTables)
            return
        }
        let result = try #require(docs.first { $0["kind"] as? String == "purge-result" })
        #expect(result["deletedTransactions"] as? Int == count)
        #expect(result["deletedChanges"] as? Int == changes)

        let afterNumbers = try numbers(store)
        #expect(afterNumbers.count == beforeNumbers.count - count)
        #expect(Set(afterNumbers).isSubset(of: Set(beforeNumbers)))
        let after = try tables(store)
        for (table, rows) in beforeTables
        where table != "ATRANSACTION" && table != "ACHANGE" && !(prune && table == "ATRANSACTIONSTRING") {
            #expect(after[table] == rows, "\(table) changed")
        }
        let q = try DatabaseQueue(path: store)
        let (check, orphans) = try q.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID NOT IN (SELECT Z_PK FROM ATRANSACTION)")
            )
        }
        #expect(check == "ok" && orphans == 0)
        try q.close()
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            let cli = try CLI.run([store, "SELECT COUNT(*) FROM ATRANSACTION"], executable: "/usr/bin/sqlite3")
            #expect(cli.stdout == "\(afterNumbers.count)\n")
        }
        // The backup holds the original content.
        #expect(try tables(backup) == beforeTables)
    }

    @Test func noBackupDeletesWithoutWritingACopy() throws {
        let dir = try copy(Repository.fixtures + "/MergeState")
        let store = dir.file("Tasks.sqlite")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        let r = try CLI.run([
            "purge", store, "--before", "tx:20", "--execute", "--yes", "--no-backup", "--format", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let docs = r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let result = docs.first { $0["kind"] as? String == "purge-result" }
        #expect(result?["deletedTransactions"] as? Int == 19)
        #expect(result?["backup"] is NSNull)
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(after.subtracting(before).filter { $0.contains("backup") }.isEmpty)
        #expect(
            try CLI.run([
                "purge", store, "--before", "tx:25", "--execute", "--yes", "--no-backup", "--backup", dir.file("b"),
            ]).status == 2)
    }

    /// A purge that knows no actor, or deletes every transaction, is executed only when the user
    /// says so: asked on a terminal, or --yes given; without either it is refused and changes nothing.
    @Test func aPurgeThatKnowsNoActorOrDeletesEverythingIsConfirmed() throws {
        let dir = try copy(Repository.fixtures + "/MergeState")
        let store = dir.file("Tasks.sqlite")
        let before = try DirectoryState(dir.path)
        let blind = try CLI.run(["purge", store, "--before", "tx:5", "--execute"])
        #expect(blind.status == 2)
        #expect(
            blind.stderr.hasPrefix(
                """
                cdhist: \(store): refused: no actor's merge position is known (--defaults, --token or \
                --group-container give them)
                """
            ))
        #expect(blind.stderr.hasSuffix(": give --yes to purge without being asked (there is no terminal to ask on)\n"))
        let everything = try CLI.run([
            "purge", store, "--before", "tx:1000", "--defaults", dir.file("phtk.plist"), "--allow-expire", "--execute",
        ])
        #expect(
            everything.status == 2
                && everything.stderr.contains("refused: it deletes every transaction of the store: give --yes"),
            "\(everything.stderr)")
        #expect(try DirectoryState(dir.path) == before)
        // Actors known and some history left: nothing to confirm.
        let known = try CLI.run([
            "purge", store, "--before", "tx:5", "--defaults", dir.file("phtk.plist"), "--execute", "--no-backup",
        ])
        #expect(known.status == 0, "\(known.stderr)")
        #expect(try CLI.run(["purge", store, "--before", "tx:8", "--execute", "--no-backup", "--yes"]).status == 0)
        // On a terminal the question shows what would be deleted; no answer is no.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/script") {
            let binary = CLI.products.appendingPathComponent("cdhist").path
            let kept = try DirectoryState(dir.path)
            let asked = try CLI.run(
                ["-qec", "\(binary) purge \(store) --before tx:12 --execute --no-backup --no-color", "/dev/null"],
                executable: "/usr/bin/script", environment: ["CDHIST_FORMAT": ""])
            #expect(
                asked.stdout.contains("Would delete:") && asked.stdout.contains("Delete 4 transactions and"),
                "\(asked.stdout)")
            #expect(asked.stdout.contains("purge cancelled; the store is unchanged"))
            #expect(try DirectoryState(dir.path) == kept)
        }
    }

    @Test func fixturePurgesInEveryForm() throws {
        let forms: [[String]] = [
            ["--before", "2025-03-04T12:00:00Z"],
            ["--before", "tx:20"],
            ["--before", "tx:30", "--author", "app", "--author", "widget"],
            ["--before", "token:TOKEN"],
            ["--strategy", "phtk-2", "--defaults", "DIR/phtk.plist", "--now", "2025-03-06T09:00:00Z"],
            ["--strategy", "swiftlee", "--defaults", "DIR/swiftlee.plist", "--now", "2025-03-06T09:00:00Z"],
            ["--strategy", "apple", "--now", "2025-03-20T09:00:00Z", "--author", "none"],
            ["--strategy", "phtk-1.0.0", "--defaults", "DIR/phtk.plist", "--now", "2025-03-06T09:00:00Z"],
        ]
        for (i, form) in forms.enumerated() {
            let dir = try copy(Repository.fixtures + "/MergeState")
            let args = form.map {
                $0.replacingOccurrences(of: "TOKEN", with: dir.file("token.data")).replacingOccurrences(
                    of: "DIR", with: dir.path)
            }
            try purgeAndCheck(store: dir.file("Tasks.sqlite"), args: args, prune: i % 2 == 1)
        }
    }

    @Test(.enabled(if: RealStores.available)) func realStorePurges() throws {
        for (folder, file, forms) in [
            (
                "photos-10.15.7", "Photos.sqlite",
                [
                    ["--before", "tx:300"], ["--before", "2021-01-01", "--author", "none", "--utc"],
                    ["--before", "token:" + RealStores.directory! + "/photos-10.15.7/HistoryToken.plist"],
                ]
            ),
            (
                "swiftdata-resources", "default.store",
                [
                    ["--before", "tx:20"], ["--before", "now"],
                    ["--strategy", "apple", "--now", "2030-01-01"],
                    ["--strategy", "appwise", "--now", "2030-01-01", "--author", "none"],
                ]
            ),
        ] {
            for form in forms {
                let dir = try copy(RealStores.directory! + "/" + folder, prefix: file)
                try purgeAndCheck(store: dir.file(file), args: form, prune: form.count > 2)
            }
        }
    }

    /// The preview counts changes by ranges of consecutive selected transactions,
    /// or with one query when the selection is scattered into too many ranges;
    /// both must equal SQLite's own count, and --breakdown must add up to it.
    @Test func previewCountsMatchSQLiteForContiguousAndScatteredSelections() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Scattered.sqlite")
        let fixture = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .wal(keepInWAL: 0),
            transactions: [])
        try StoreWriter.write(
            fixture, to: store, generated: (48_000, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 2) }))
        let q = try LogicalDump.readOnlyQueue(store)
        defer { try? q.close() }
        // `app` writes two isolated transactions in every eight: 12,000 ranges; `widget` one: 3,750 below #30000.
        for (args, condition) in [
            (["--before", "tx:40000"], "t.Z_PK < 40000"),
            (["--before", "tx:48001", "--author", "app"], "s.ZNAME = 'app'"),
            (["--before", "tx:30000", "--author", "widget"], "t.Z_PK < 30000 AND s.ZNAME = 'widget'"),
        ] {
            let (transactions, changes) = try q.read { db in
                let selected =
                    """
                    SELECT t.Z_PK FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS \
                    WHERE \(condition)
                    """
                return (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(selected))") ?? -1,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID IN (\(selected))")
                        ?? -1
                )
            }
            #expect(transactions > 3000 && changes == 2 * transactions, "\(args)")
            let plain = try CLI.run(["purge", store] + args).json()
            #expect(plain["transactionCount"] as? Int == transactions, "\(args)")
            #expect(plain["changeCount"] as? Int == changes, "\(args)")
            #expect(plain["byEntity"] is NSNull, "\(args)")
            let authors = try #require(plain["byAuthor"] as? [[String: Any]])
            #expect(authors.allSatisfy { $0["changes"] is NSNull })
            #expect(authors.reduce(0) { $0 + ($1["transactions"] as? Int ?? 0) } == transactions)

            let detailed = try CLI.run(["purge", store, "--breakdown"] + args).json()
            #expect(detailed["changeCount"] as? Int == changes)
            let byAuthor = try #require(detailed["byAuthor"] as? [[String: Any]])
            #expect(byAuthor.reduce(0) { $0 + ($1["changes"] as? Int ?? -1) } == changes, "\(args)")
            let byEntity = try #require(detailed["byEntity"] as? [[String: Any]])
            let entityTotal = byEntity.reduce(0) { total, e in
                total + ["inserts", "updates", "deletes"].reduce(0) { $0 + (e[$1] as? Int ?? 0) }
            }
            #expect(entityTotal == changes, "\(args)")
        }
    }

    /// A relative `--before` counts back from `--now`, and every preview says where it cuts.
    @Test func relativeCutoffCountsFromNowAndIsShown() throws {
        let store = Repository.fixtures + "/MergeState/Tasks.sqlite"
        // #10 is at 10:40 and #11 at 11:10: 7 days after 11:00, "7d" cuts between them.
        let relative = try CLI.run(["purge", store, "--before", "7d", "--now", "2025-03-10T11:00:00Z", "--utc"]).json()
        #expect(relative["transactionCount"] as? Int == 10)
        #expect(relative["lastTransactionNumber"] as? Int == 10)
        #expect(relative["cutoff"] as? String == "2025-03-03T11:00:00.000Z")
        #expect(relative["cutoffTransaction"] as? Int == 11)
        let table = try CLI.run([
            "purge", store, "--before", "7d", "--now", "2025-03-10T11:00:00Z", "--utc", "--format", "table",
        ]).stdout
        #expect(table.contains("Cut-off:      2025-03-03 11:00:00.000Z, before #11"), "\(table)")
        // A transaction bound: the cut's date is that transaction's.
        let numbered = try CLI.run(["purge", store, "--before", "tx:11", "--utc"]).json()
        #expect(numbered["cutoff"] as? String == "2025-03-03T11:10:00.000Z")
        #expect(numbered["cutoffTransaction"] as? Int == 11)
        #expect(numbered["transactionCount"] as? Int == 10)
        // One of each is one, not ones.
        let one = try CLI.run(["purge", store, "--before", "tx:2", "--utc", "--format", "table"]).stdout
        #expect(one.contains("Would delete: 1 transaction and 0 changes (#1…#1,"), "\(one)")
        // Past the newest transaction: no transaction after the cut.
        let everything = try CLI.run(["purge", store, "--before", "2030-01-01T00:00:00Z", "--utc"]).json()
        #expect(everything["cutoff"] as? String == "2030-01-01T00:00:00.000Z")
        #expect(everything["cutoffTransaction"] is NSNull)
        #expect(everything["survivingTransactionCount"] as? Int == 0)
    }

    @Test func vacuumShrinksTheFile() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("Big.sqlite")
        let fixture = FixtureStore(
            model: Scenarios.tasksModel, storeUUID: Scenarios.appGroupUUID, journalMode: .wal(keepInWAL: 0),
            transactions: [])
        try StoreWriter.write(
            fixture, to: store, generated: (2000, { Scenarios.benchmarkTransaction($0, changesPerTransaction: 5) }))
        let before = storeFilesSize(store)
        let r = try CLI.run(["purge", store, "--before", "tx:1900", "--execute", "--yes", "--vacuum"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(storeFilesSize(store) < before / 2)
        #expect(try numbers(store).count == 101)
    }

    @Test func refusalsChangeNothing() throws {
        let dir = try copy(Repository.fixtures + "/MergeState")
        let store = dir.file("Tasks.sqlite")
        let state = try DirectoryState(dir.path)
        // A purge that expires a token actor is refused without --allow-expire.
        let expire = try CLI.run([
            "purge", store, "--before", "tx:32", "--token", "app=" + dir.file("token.data"), "--actor", "app",
            "--execute", "--yes",
        ])
        #expect(expire.status == 2)
        #expect(expire.stderr.contains("would break app (expired); give --allow-expire"))
        #expect(try DirectoryState(dir.path) == state)
        // Entity filters make no sense for a purge.
        let entity = try CLI.run(["purge", store, "--before", "tx:5", "--entity", "Task"])
        #expect(entity.status == 2)
        // Read-only store, then read-only folder.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
        let ro = try CLI.run(["purge", store, "--before", "tx:5", "--execute", "--yes"])
        #expect(ro.status == 2 && ro.stderr.contains("cannot repair: the store file is read-only"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        let roDir = try CLI.run(["purge", store, "--before", "tx:5", "--execute", "--yes"])
        #expect(roDir.status == 2 && roDir.stderr.contains("its folder is read-only"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        #expect(try DirectoryState(dir.path) == state)
    }

    @Test(.enabled(if: LockHolder.available)) func lockedStoreIsRefused() throws {
        let dir = try copy(Repository.fixtures + "/MergeState")
        let store = dir.file("Tasks.sqlite")
        let before = try tables(store)
        let holder = try LockHolder(path: store, statement: "BEGIN IMMEDIATE")
        let r = try CLI.run(["purge", store, "--before", "tx:20", "--execute", "--yes", "--lock-timeout", "0.3"])
        holder.release()
        #expect(r.status == 2)
        #expect(r.stderr.contains("in use by another process"))
        #expect(try tables(store) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains("cdhist-backup") })
    }

    /// A backup name another purge is writing is never taken over; a store held while another
    /// purge writes its backup beside it is said to be another cdhist's.
    @Test(.enabled(if: LockHolder.available)) func concurrentPurgesSayWhatHoldsThem() throws {
        let dir = try copy(Repository.fixtures + "/MergeState")
        let store = dir.file("Tasks.sqlite")
        let before = try tables(store)
        let purge = ["purge", store, "--before", "tx:20", "--execute", "--yes", "--allow-expire"]
        // Another cdhist purging the store holds its lock file: refused at once, naming it, nothing written.
        let lockFile = dir.file("Tasks.sqlite.cdhist-purging")
        let holder = "process 4242, since 2026-11-24T10:00:00Z"
        #expect(FileManager.default.createFile(atPath: lockFile, contents: Data((holder + "\n").utf8)))
        let fd = open(lockFile, O_RDWR)
        #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        let running = try CLI.run(purge)
        close(fd)
        #expect(
            running.status == 2
                && running.stderr
                    == "cdhist: \(store): another purge of this store is running (\(holder)); wait for it to finish\n",
            "\(running.stderr)")
        #expect(try tables(store) == before)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)).filter { $0.contains("cdhist-backup") }
                .isEmpty)
        // Another process (the app) holding the store: said to be in use, and the purge's backup removed.
        let lock = try LockHolder(path: store, statement: "BEGIN IMMEDIATE")
        let held = try CLI.run(purge + ["--lock-timeout", "0.3"])
        lock.release()
        #expect(
            held.status == 2 && held.stderr.contains("in use by another process (still locked after 0.3 s)"),
            "\(held.stderr)")
        #expect(try tables(store) == before)
        // A backup a stopped purge left unfinished is never taken over.
        let partial = dir.file("mine.sqlite.partial")
        #expect(FileManager.default.createFile(atPath: partial, contents: Data("a stopped purge's".utf8)))
        let taken = try CLI.run(purge + ["--backup", dir.file("mine.sqlite")])
        #expect(
            taken.status == 2
                && taken.stderr.contains("\(partial) exists: a purge that was stopped left it unfinished; remove it"),
            "\(taken.stderr)")
        #expect(FileManager.default.contents(atPath: partial) == Data("a stopped purge's".utf8))
        #expect(try tables(store) == before)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
                == Set(try FileManager.default.contentsOfDirectory(atPath: Repository.fixtures + "/MergeState")).union([
                    "mine.sqlite.partial"
                ]))
    }

    @Test func aPurgeSaysWhatAStoppedPurgeLeft() throws {
        let dir = try copy(Repository.fixtures + "/MergeState")
        let store = dir.file("Tasks.sqlite")
        // What a killed purge leaves: its lock file (nobody holds its lock) and its backup's .partial.
        #expect(
            FileManager.default.createFile(
                atPath: dir.file("Tasks.sqlite.cdhist-purging"),
                contents: Data("process 1, since 2026-11-24T10:00:00Z\n".utf8)))
        let partial = dir.file("Tasks.sqlite.cdhist-backup-20250101-000000.partial")
        #expect(FileManager.default.createFile(atPath: partial, contents: Data()))
        let r = try CLI.run(["purge", store, "--before", "tx:20", "--execute", "--yes", "--allow-expire"])
        #expect(r.status == 0, "\(r.stderr)")
        let documents = r.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let json = try #require(documents.first { $0["kind"] as? String == "purge-result" })
        #expect(json["earlierPurgeStopped"] as? Bool == true)
        #expect(json["unfinishedBackups"] as? [String] == [partial])
        #expect(json["deletedTransactions"] as? Int == 19)
        // The purge's lock file is gone with it; the unfinished backup is the user's to remove.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(
            !names.contains("Tasks.sqlite.cdhist-purging")
                && names.contains(URL(fileURLWithPath: partial).lastPathComponent))
        #expect(names.filter { $0.contains("cdhist-backup") && !$0.hasSuffix(".partial") }.count == 1)
        // As a table, it says so after the result.
        let again = try copy(Repository.fixtures + "/MergeState")
        #expect(
            FileManager.default.createFile(
                atPath: again.file("Tasks.sqlite.cdhist-backup-20250101-000000.partial"), contents: Data()))
        let table = try CLI.run(
            [
                "purge", again.file("Tasks.sqlite"), "--before", "tx:20", "--execute", "--yes", "--allow-expire",
                "--format", "table",
            ], environment: ["COLUMNS": "80"])
        #expect(table.status == 0, "\(table.stderr)")
        // Wrapped to 80 columns (a path may break after a slash): compared without white space.
        let text = table.stdout.filter { !$0.isWhitespace }
        let note =
            """
            \(again.file("Tasks.sqlite.cdhist-backup-20250101-000000.partial")) is a backup a stopped purge did \
            not finish: it is not usable; remove it.
            """
        #expect(text.contains(note.filter { !$0.isWhitespace }), "\(table.stdout)")
        #expect(!table.stdout.contains("An earlier purge of this store was stopped"))
    }

    /// SIGTERM at each stage of a purge: rolled back with nothing left before the commit,
    /// finished and checked after it; said on stderr, exit status 2.
    @Test func aSignalStopsAPurgeAtASafePoint() throws {
        for (stage, deleted) in [("after-backup", false), ("before-commit", false), ("after-commit", true)] {
            let dir = try copy(Repository.fixtures + "/MergeState")
            let store = dir.file("Tasks.sqlite")
            let before = try tables(store)
            let r = try CLI.run(
                ["purge", store, "--before", "tx:20", "--execute", "--yes", "--allow-expire", "--vacuum"],
                environment: ["CDHIST_FAULT": "term:" + stage])
            #expect(r.status == 2, "\(stage): \(r.stderr)")
            #expect(r.stderr.hasPrefix("cdhist: \(store): interrupted by SIGTERM; "), "\(stage): \(r.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(!names.contains { $0.hasSuffix(".partial") || $0.hasSuffix("-journal") }, "\(stage): \(names)")
            if deleted {
                #expect(
                    r.stderr.contains("the purge was committed and checked") && r.stderr.contains("VACUUM was not run"))
                #expect(try tables(store) != before && names.filter { $0.contains("cdhist-backup") }.count == 1)
            } else {
                #expect(r.stderr.contains("nothing was deleted: the store is as it was and the backup was removed"))
                #expect(try tables(store) == before && !names.contains { $0.contains("cdhist-backup") })
            }
        }
    }

    @Test func killedPurgesLeaveOldOrNewContentAndAUsableBackup() throws {
        for stage in ["after-backup", "mid-delete", "before-commit", "after-commit"] {
            let dir = try copy(Repository.fixtures + "/MergeState")
            let store = dir.file("Tasks.sqlite")
            let original = try tables(store)
            let r = try CLI.run(
                ["purge", store, "--before", "tx:20", "--execute", "--yes", "--backup", dir.file("backup.sqlite")],
                environment: ["CDHIST_FAULT": stage])
            #expect(r.status == 128 + SIGKILL, "\(stage): status \(r.status)")
            let now = try tables(store)
            let committed = stage == "after-commit"
            #expect((now["ATRANSACTION"]?.count ?? 0) - 1 == (committed ? 15 : 34), "\(stage)")
            #expect((now["ACHANGE"]?.count ?? 0) - 1 == (committed ? 27 : 67), "\(stage)")
            if !committed { #expect(now == original, "\(stage): partial content") }
            let q = try DatabaseQueue(path: store)
            let check = try q.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
            #expect(check == "ok")
            try q.close()
            #expect(try tables(dir.file("backup.sqlite")) == original, "\(stage): backup")
            #expect(!FileManager.default.fileExists(atPath: dir.file("backup.sqlite.partial")))
        }
    }
}

private func storeFilesSize(_ path: String) -> Int64 {
    let main = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0
    return main + wal
}
