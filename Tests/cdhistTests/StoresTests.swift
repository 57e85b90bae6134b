import Foundation
import GRDB
import HistoryFixtures
import HistoryKit
import TestSupport
import Testing
import ZIPFoundation

/// `stores` in each place users keep stores, and the names it prints taken by every command.
@Suite struct StoresTests {
    /// The transactions SQLite counts in a store whose main file and `-wal` are `main` and `wal`
    /// (copied first: SQLite writes beside what it opens).
    static func sqliteCount(main: String, wal: String?) throws -> Int {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: main, toPath: dir.file("s.sqlite"))
        if let wal, FileManager.default.fileExists(atPath: wal) {
            try FileManager.default.copyItem(atPath: wal, toPath: dir.file("s.sqlite-wal"))
        }
        let queue = try DatabaseQueue(path: dir.file("s.sqlite"))
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? -1 }
    }

    /// SQLite's count for a store inside a backup, found through Manifest.db with SQLite itself.
    static func sqliteCount(backup root: String, domain: String, path: String) throws -> Int {
        let manifest = try DatabaseQueue(
            path: root + "/Manifest.db",
            configuration: {
                var c = Configuration()
                c.readonly = true
                return c
            }())
        defer { try? manifest.close() }
        func stored(_ relative: String) throws -> String? {
            try manifest.read {
                try String.fetchOne(
                    $0, sql: "SELECT fileID FROM Files WHERE domain = ? AND relativePath = ?",
                    arguments: [domain, relative])
            }
            .map { "\(root)/\($0.prefix(2))/\($0)" }
        }
        return try sqliteCount(main: try #require(try stored(path)), wal: try stored(path + "-wal"))
    }

    /// SQLite's count for a store inside a zip, unpacked with ZIPFoundation.
    static func sqliteCount(zip: String, inner: String) throws -> Int {
        let dir = try TemporaryDirectory()
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        _ = try archive.extract(try #require(archive[inner]), to: URL(fileURLWithPath: dir.file("s.sqlite")))
        if let wal = archive[inner + "-wal"] {
            _ = try archive.extract(wal, to: URL(fileURLWithPath: dir.file("s.sqlite-wal")))
        }
        return try sqliteCount(main: dir.file("s.sqlite"), wal: dir.file("s.sqlite-wal"))
    }

    /// Every file and folder below `root`, with its bytes (a folder's are empty).
    static func snapshot(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDir) {
                files[relative] =
                    isDir.boolValue ? Data() : try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))
            }
        }
        return files
    }

    @Test(arguments: PlaceFixtures.layouts)
    func eachLayoutListsExactlyItsHistoryStores(layout: String) throws {
        let dir = try TemporaryDirectory()
        let (place, planted) = try PlaceFixtures.write(layout, into: dir.path)
        let r = try CLI.run(["stores", place, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try r.json()
        #expect(json["kind"] as? String == "stores")
        let stores = try #require(json["stores"] as? [[String: Any]])
        #expect(
            Set(stores.compactMap { $0["name"] as? String }) == Set(planted.map(\.name)),
            "\(stores.map { $0["name"] ?? "" })")
        for store in stores {
            let name = try #require(store["name"] as? String)
            let plant = try #require(planted.first { $0.name == name })
            #expect(store["identifier"] as? String == plant.identifier)
            // The original's count, by SQLite, WAL included.
            let expected: Int
            switch layout {
            case "backup":
                let inner = String(name.dropFirst(dir.path.count + "/backup/".count)).split(
                    separator: "/", maxSplits: 1
                ).map(String.init)
                let parts = inner[1].split(separator: "/", maxSplits: 1).map(String.init)
                expected = try Self.sqliteCount(
                    backup: dir.path + "/backup/" + inner[0], domain: parts[0], path: parts[1])
            case "archive":
                expected = try Self.sqliteCount(zip: place, inner: String(name.dropFirst(place.count + 1)))
            default:
                expected = try Self.sqliteCount(main: name, wal: name + "-wal")
            }
            #expect(expected == plant.transactionCount)
            #expect(store["transactionCount"] as? Int == expected)
            let info = try CLI.run(["info", name, "--format", "json"])
            #expect(info.status == 0, "\(info.stderr)")
            let statistics = try info.json()["statistics"] as? [String: Any] ?? info.json()
            #expect(statistics["transactionCount"] as? Int == expected, "\(info.stdout.prefix(400))")
        }
        // --names: the same names, one per line; in a table, each on its own line whole, quoted when it holds a space.
        let names = try CLI.run(["stores", place, "--names"])
        #expect(
            names.status == 0 && Set(names.lines) == Set(planted.map(\.name)) && names.lines.count == planted.count,
            "\(names.stdout)")
        let table = try CLI.run(
            ["-c", "COLUMNS=60 \(CLI.products.path)/cdhist stores '\(place)' --format table"], executable: "/bin/sh")
        for plant in planted {
            let shown = plant.name.contains(" ") ? "    '\(plant.name)'" : "    \(plant.name)"
            #expect(table.stdout.components(separatedBy: "\n").contains(shown), "\(shown) in \(table.stdout)")
        }
        // Decoys are never stores; the ones that look like stores are counted as problems.
        let problems = try #require(json["problems"] as? [[String: Any]])
        let problemNames = problems.compactMap { $0["name"] as? String }
        #expect(
            !stores.contains {
                ($0["name"] as? String)?.contains("Seed.sqlite") == true
                    || ($0["name"] as? String)?.contains("cache.db") == true
            })
        #expect(!problemNames.contains { $0.contains("Seed.sqlite") || $0.contains("cache.db") }, "\(problemNames)")
        #expect(problemNames.contains { $0.hasSuffix("NoHistory.sqlite") }, "\(problemNames)")
        #expect(problemNames.contains { $0.hasSuffix("Broken.sqlite") }, "\(problemNames)")
        if layout == "backup" {
            let encrypted = try #require(problems.first { ($0["problem"] as? String)?.contains("encrypted") == true })
            #expect((encrypted["name"] as? String)?.hasSuffix("/0000000000000000000000000000000000000000") == true)
        }
    }

    @Test func aStoreInABackupOpensInEveryReadCommandAndTheBackupStaysAsItWas() throws {
        let dir = try TemporaryDirectory()
        let (place, planted) = try PlaceFixtures.write("backup", into: dir.path)
        let name = try #require(planted.first?.name)
        let before = try Self.snapshot(place)
        for command in [
            ["info"], ["transactions", "--limit", "3"], ["changes", "--limit", "3"], ["show", "34"], ["entities"],
            ["authors"],
            ["actors"], ["check"], ["timeline"], ["export", "--format", "ndjson"], ["object", "Task/p1"], ["cloudkit"],
            ["purge", "--before", "tx:10"], ["watch", "--since", "tx:30", "--limit", "2"],
            ["report", "--out", dir.file("r.html")],
        ] {
            let r = try CLI.run([command[0], name] + command.dropFirst())
            #expect(r.status == 0 || (command[0] == "check" && r.status == 1), "\(command): \(r.stderr)")
        }
        let watched = try CLI.run(["watch", name, "--since", "tx:30", "--limit", "2"])
        #expect(watched.lines.count == 2, "\(watched.stdout)")
        let token = try CLI.run(["token", "\(Scenarios.appGroupUUID):20", "--store", name])
        #expect(token.status == 0, "\(token.stdout)\(token.stderr)")
        let export = try CLI.run(["export", name, "--format", "ndjson"])
        #expect(export.lines.count == planted.first?.transactionCount, "one line per transaction")
        let session = try CLI.run([name, "-c", "info"])
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("\"transactionCount\":34,"), "\(session.stdout)")
        let diff = try CLI.run(["diff", name, name])
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(try Self.snapshot(place) == before, "the backup changed")
        // Writing into a backup is refused before anything happens.
        let purge = try CLI.run(["purge", name, "--before", "tx:10", "--execute", "--yes", "--no-backup"])
        #expect(purge.status == 2)
        #expect(purge.stderr.contains("inside a backup or an archive"), "\(purge.stderr)")
        #expect(try Self.snapshot(place) == before, "the backup changed")
    }

    /// Stores in plain folders have no identifier, and their name already says where they are: the
    /// table has neither column (a column of "-" and a Where line repeating each path, before).
    @Test func plainFoldersGetNoIdentifierNorWhere() throws {
        let r = try CLI.run(
            ["stores", Repository.fixtures + "/MergeState", Repository.fixtures + "/AppGroup", "--format", "table"],
            environment: ["COLUMNS": "80"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.lines.first?.split(separator: " ") == ["Transactions", "Newest", "Size", "Health", "State"], "\(r.stdout)"
        )
        #expect(
            !r.stdout.contains("Where:") && r.lines.contains { $0.hasSuffix("/fixtures/MergeState/Tasks.sqlite") },
            "\(r.stdout)")
    }

    @Test func oneDeviceAndASetWithoutItsPlistListTheSameStores() throws {
        let dir = try TemporaryDirectory()
        let (place, planted) = try PlaceFixtures.write("simulator", into: dir.path)
        try FileManager.default.removeItem(atPath: place + "/device_set.plist")
        let device = try #require(try FileManager.default.contentsOfDirectory(atPath: place).first)
        for where_ in [place, place + "/" + device] {
            let r = try CLI.run(["stores", where_, "--format", "json"])
            let stores = try #require(try r.json()["stores"] as? [[String: Any]])
            #expect(Set(stores.compactMap { $0["name"] as? String }) == Set(planted.map(\.name)), "\(where_)")
            #expect(
                stores.allSatisfy { $0["location"] as? String == "iPhone 16 (iOS 18.2)" },
                "\(stores.map { $0["location"] ?? "" })")
        }
    }

    @Test func mergeStateComesAlongFromTheContainers() throws {
        let dir = try TemporaryDirectory()
        let (_, planted) = try PlaceFixtures.write("simulator", into: dir.path)
        let group = try #require(planted.first { $0.identifier.hasPrefix("group.") })
        let r = try CLI.run(["actors", group.name, "--format", "json", "--now", "2025-03-06"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try r.json()
        let sources = (json["sources"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        // The group's shared defaults, and the app's standard defaults (it names the group in its metadata).
        #expect(sources.contains { $0.hasSuffix("/Library/Preferences/group.com.example.tasks.plist") }, "\(sources)")
        #expect(sources.contains { $0.hasSuffix("/Library/Preferences/com.example.tasks.plist") }, "\(sources)")
        let actors = (json["actors"] as? [[String: Any]] ?? []).compactMap {
            $0["actor"] as? String ?? $0["name"] as? String
        }
        #expect(Set(actors).isSuperset(of: ["app", "widget", "shareExtension"]), "\(actors)")
        // In a backup: the group's domain and the app's.
        let (_, inBackup) = try PlaceFixtures.write("backup", into: dir.path)
        let b = try CLI.run(["actors", try #require(inBackup.first?.name), "--format", "json", "--now", "2025-03-06"])
        let backupActors = (try b.json()["actors"] as? [[String: Any]] ?? []).compactMap {
            $0["actor"] as? String ?? $0["name"] as? String
        }
        #expect(Set(backupActors).isSuperset(of: ["app", "widget"]), "\(b.stdout.prefix(600))")
    }

    @Test func namesInsideBackupsAndArchivesComplete() throws {
        let dir = try TemporaryDirectory()
        let (place, planted) = try PlaceFixtures.write("backup", into: dir.path)
        let root = try #require(planted.first?.name.components(separatedBy: "/AppDomainGroup-").first)
        let typed = root + "/AppDomainG"
        let r = try CLI.run([
            "---completion", "info", "--", "positional@0", "2", String(typed.count), "cdhist", "info", typed,
        ])
        #expect(r.lines == [root + "/AppDomainGroup-group.com.example.tasks/"], "\(r.stdout)\(r.stderr)")
        #expect(root.hasPrefix(place))
        let (zip, inZip) = try PlaceFixtures.write("archive", into: dir.path)
        let deep = try #require(inZip.first?.name)
        let prefix = String(deep.prefix(zip.count + 10))
        let z = try CLI.run([
            "---completion", "info", "--", "positional@0", "2", String(prefix.count), "cdhist", "info", prefix,
        ])
        #expect(z.lines == [zip + "/private/var/"], "\(z.stdout)\(z.stderr)")
    }

    @Test func anEncryptedBackupIsAProblemWithAClearWay() throws {
        let dir = try TemporaryDirectory()
        _ = try PlaceFixtures.write("backup", into: dir.path)
        let locked = dir.path + "/backup/0000000000000000000000000000000000000000"
        let r = try CLI.run(["stores", locked, "--all", "--format", "table"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("encrypted"), "\(r.stdout)")
        #expect(r.stdout.contains("Decrypt it with the tool you already have"), "\(r.stdout)")
        let open = try CLI.run(["info", locked + "/HomeDomain/Library/x.sqlite"])
        #expect(open.status == 2)
        #expect(open.stderr.contains("the backup is encrypted"), "\(open.stderr)")
    }

    @Test(.enabled(if: RealStores.available)) func realStoresAreFoundInAFolderABackupAndAnArchive() throws {
        let dir = try TemporaryDirectory()
        let real = try #require(RealStores.directory)
        try FileManager.default.createDirectory(atPath: dir.file("tree"), withIntermediateDirectories: true)
        for name in ["photos-10.15.7", "photos-15.4.1", "swiftdata-resources"] {
            try FileManager.default.copyItem(atPath: real + "/" + name, toPath: dir.file("tree/" + name))
        }
        let folder = try CLI.run(["stores", dir.file("tree"), "--format", "json"])
        let found = try #require(try folder.json()["stores"] as? [[String: Any]])
        #expect(found.count == 3, "\(folder.stdout.prefix(500))")
        for store in found {
            let name = try #require(store["name"] as? String)
            #expect(
                store["transactionCount"] as? Int == (try Self.sqliteCount(main: name, wal: name + "-wal")), "\(name)")
        }
        // The same stores in a backup (each -wal stored apart) and in a zip.
        let photos = dir.file("tree/photos-15.4.1/Photos.sqlite")
        let backup = try PlaceFixtures.backup(
            holding: [("CameraRollDomain", "Media/PhotoData/Photos.sqlite", photos)], into: dir.file("backups"))
        let before = try Self.snapshot(backup)
        let listed = try CLI.run(["stores", backup, "--format", "json"])
        let inBackup = try #require((try listed.json()["stores"] as? [[String: Any]])?.first)
        let expected = try Self.sqliteCount(main: photos, wal: photos + "-wal")
        #expect(inBackup["transactionCount"] as? Int == expected)
        let name = try #require(inBackup["name"] as? String)
        #expect(name == backup + "/CameraRollDomain/Media/PhotoData/Photos.sqlite")
        let info = try CLI.run(["transactions", name, "--format", "json"])
        #expect((try info.json()["transactions"] as? [Any])?.count == expected, "\(info.stderr)")
        #expect(try Self.snapshot(backup) == before)
        try FileManager.default.createDirectory(atPath: dir.file("zipped"), withIntermediateDirectories: true)
        try PlaceFixtures.archive(dir.file("tree"), to: dir.file("zipped/real.zip"))
        let zipped = try CLI.run(["stores", dir.file("zipped/real.zip"), "--format", "json"])
        let inZip = try #require(try zipped.json()["stores"] as? [[String: Any]])
        #expect(inZip.count == 3)
        for store in inZip {
            let inner = String((store["name"] as? String ?? "").dropFirst(dir.file("zipped/real.zip").count + 1))
            #expect(
                store["transactionCount"] as? Int
                    == (try Self.sqliteCount(main: dir.file("tree/" + inner), wal: dir.file("tree/" + inner) + "-wal")))
        }
        // A case folder of extraction zips: the folder lists what each zip holds.
        try FileManager.default.copyItem(atPath: dir.file("zipped/real.zip"), toPath: dir.file("zipped/second.zip"))
        let caseFolder = try CLI.run(["stores", dir.file("zipped"), "--format", "json"])
        let inFolder = try #require(try caseFolder.json()["stores"] as? [[String: Any]])
        let names = inFolder.compactMap { $0["name"] as? String }
        #expect(
            names.filter { $0.hasPrefix(dir.file("zipped/real.zip/")) }.count == 3
                && names.filter { $0.hasPrefix(dir.file("zipped/second.zip/")) }.count == 3,
            "\(names)")
    }

    /// Evidence inside an archive: info --hash hashes each file read from it (its path there, its
    /// size, the SHA-256 of its bytes) beside the archive, and info shows the -shm it holds.
    @Test func infoHashesTheFilesItReadsFromAnArchive() throws {
        let dir = try TemporaryDirectory()
        let (zip, planted) = try PlaceFixtures.write("archive", into: dir.path)
        let name = try #require(planted.first?.name)
        let inner = String(name.dropFirst(zip.count + 1))
        let doc = try CLI.run(["info", name, "--hash", "--format", "json"]).json()
        let files = try #require((doc["evidence"] as? [String: Any])?["files"] as? [[String: Any]])
        let archiveFile = try #require(files.first { $0["role"] as? String == "archive" })
        let members = try #require(archiveFile["members"] as? [[String: Any]])
        let paths = members.compactMap { $0["path"] as? String }
        #expect(Array(paths.prefix(3)) == [inner, inner + "-wal", inner + "-shm"])
        #expect(
            paths.count == 4 && paths[3].hasSuffix("/Library/Preferences/group.com.example.tasks.plist"), "\(paths)")
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        for member in members {
            let entry = try #require(archive[member["path"] as? String ?? ""])
            let copy = dir.file("member")
            try? FileManager.default.removeItem(atPath: copy)
            _ = try archive.extract(entry, to: URL(fileURLWithPath: copy))
            let digest = try #require(try FileDigest.take(copy))
            #expect(member["size"] as? Int == Int(digest.size))
            #expect(member["sha256"] as? String == digest.sha256, "\(member["path"] ?? "")")
        }
        #expect(
            (doc["files"] as? [String: Any])?["packedShm"] as? Int == members.first { $0["role"] as? String == "shm" }?[
                "size"] as? Int)
        let table = try CLI.run(["info", name, "--format", "table"], environment: ["COLUMNS": "80"]).stdout
        #expect(table.contains("SHM:               32.0 KiB (32768 bytes) in the archive"), "\(table)")
    }

    /// Zips found in a folder are searched as when named; other zip-based files (.ipa) are not.
    @Test func aFolderOfZipsListsTheirStores() throws {
        let dir = try TemporaryDirectory()
        let (zip, planted) = try PlaceFixtures.write("archive", into: dir.path)
        let folder = dir.file("case")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: zip, toPath: folder + "/phone.zip")
        try FileManager.default.copyItem(atPath: zip, toPath: folder + "/App.ipa")
        let r = try CLI.run(["stores", folder, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = (try r.json()["stores"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        let inner = try #require(planted.first?.name.dropFirst(zip.count))
        #expect(names == [folder + "/phone.zip" + inner])
        #expect(try CLI.run(["info", names[0], "--format", "json"]).status == 0)
    }
}

/// Names and places that once trapped, hung or listed a store twice.
@Suite struct StorePlaceInputTests {
    @Test func oneCharacterNamesAreFilesNotCrashes() throws {
        let dir = try TemporaryDirectory()
        for name in ["a", "a/x.sqlite", "q/x.sqlite"] {
            let r = try CLI.run(["info", dir.file(".") + "/../" + PathText.last(dir.path) + "/" + name])
            #expect(r.status == 2 && r.stderr.contains("no such file"), "\(name): \(r.status) \(r.stderr)")
            let bare = try CLI.run(["info", name])
            #expect(bare.status == 2 && bare.stderr.contains("no such file"), "\(name): \(bare.status) \(bare.stderr)")
        }
        for typed in ["a", ".", "~", "a/"] {
            let r = try CLI.run([
                "---completion", "info", "--", "positional@0", "2", String(typed.count), "cdhist", "info", typed,
            ])
            #expect(r.status == 0, "\(typed): \(r.stderr)")
        }
    }

    @Test func aZipWithOddPathsListsNamesThatOpen() throws {
        let dir = try TemporaryDirectory()
        let (zip, planted) = try PlaceFixtures.write("archive", into: dir.path)
        let store = try #require(planted.first?.name)
        // The same store again under a one-letter folder and under a doubled slash.
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .update)
        let inner = String(store.dropFirst(zip.count + 1))
        let copy = dir.file("store.sqlite")
        _ = try archive.extract(try #require(archive[inner]), to: URL(fileURLWithPath: copy))
        for odd in ["a/Local.sqlite", "c/./d//Local.sqlite"] {
            try archive.addEntry(with: odd, fileURL: URL(fileURLWithPath: copy))
        }
        let r = try CLI.run(["stores", zip, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try #require(try r.json()["stores"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names.count == 3, "\(names)")
        for name in names {
            let info = try CLI.run(["info", name, "--format", "json"])
            #expect(info.status == 0, "\(name): \(info.stderr)")
        }
    }

    @Test func aDamagedManifestAndAFIFOInABackupAreProblemsNotCrashesOrHangs() throws {
        let dir = try TemporaryDirectory()
        let (place, planted) = try PlaceFixtures.write("backup", into: dir.path)
        let root = try #require(planted.first?.name.components(separatedBy: "/AppDomainGroup-").first)
        let manifest = try DatabaseQueue(path: root + "/Manifest.db")
        try manifest.write { db in
            try db.execute(sql: "INSERT INTO Files VALUES ('abcdef', X'FF', 'x', 1, NULL)")
            try db.execute(sql: "INSERT INTO Files VALUES ('ff0011', 'HomeDomain', 'Library/pipe.sqlite', 1, NULL)")
        }
        try manifest.close()
        try FileManager.default.createDirectory(atPath: root + "/ff", withIntermediateDirectories: true)
        #expect(mkfifo(root + "/ff/ff0011", 0o600) == 0)
        let r = try CLI.run(["stores", place, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try #require(try r.json()["stores"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == planted.map(\.name))
        let pipe = try CLI.run(["info", root + "/HomeDomain/Library/pipe.sqlite"])
        #expect(pipe.status == 2 && pipe.stderr.contains("not a regular file"), "\(pipe.stderr)")
    }

    @Test func aBackupFolderCompletesToItsDomainsAndALinkedStoreIsListedOnce() throws {
        let dir = try TemporaryDirectory()
        let (_, planted) = try PlaceFixtures.write("backup", into: dir.path)
        let root = try #require(planted.first?.name.components(separatedBy: "/AppDomainGroup-").first)
        let typed = root + "/"
        let r = try CLI.run([
            "---completion", "info", "--", "positional@0", "2", String(typed.count), "cdhist", "info", typed,
        ])
        #expect(
            r.lines == [root + "/AppDomain-com.example.tasks/", root + "/AppDomainGroup-group.com.example.tasks/"],
            "\(r.stdout)")
        let (_, xc) = try PlaceFixtures.write("xcappdata", into: dir.path)
        let store = try #require(xc.first?.name)
        try FileManager.default.createSymbolicLink(
            atPath: dir.file("xcappdata/link.sqlite"), withDestinationPath: store)
        let listed = try CLI.run(["stores", dir.file("xcappdata"), "--format", "json"])
        #expect((try listed.json()["stores"] as? [Any])?.count == 1, "\(listed.stdout.prefix(300))")
    }
}

/// A private copy a killed cdhist left behind is removed by the next one.
@Suite struct PrivateCopyTests {
    @Test func aCopyLeftByAKilledProcessIsRemovedByTheNext() throws {
        let dir = try TemporaryDirectory()
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let (_, planted) = try PlaceFixtures.write("archive", into: dir.path)
        let name = try #require(planted.first?.name)
        let environment = ["TMPDIR": tmp]
        // A process that has ended: what a cdhist killed by a signal leaves is a folder named with it.
        let ended = try CLI.start(["--version"])
        _ = try ended.wait()
        let abandoned = ["cdhist-packed-\(ended.pid)-left", "cdhist-snapshot-\(ended.pid)-left"]
        let kept = ["cdhist-packed-\(getpid())-alive", "cdhist-packed-notapid"]
        for folder in abandoned + kept {
            try FileManager.default.createDirectory(
                atPath: tmp + "/" + folder + "/x", withIntermediateDirectories: true)
        }
        let info = try CLI.run(["info", name], environment: environment)
        #expect(info.status == 0, "\(info.stderr)")
        let after = try FileManager.default.contentsOfDirectory(atPath: tmp).sorted()
        #expect(after == kept.sorted(), "\(after)")
    }
}
