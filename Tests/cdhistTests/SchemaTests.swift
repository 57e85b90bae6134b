import Foundation
import HistoryFixtures
import TestSupport
import Testing

/// Every command's JSON and NDJSON output validates against schemas/cdhist.schema.json,
/// and the schema rejects a field it does not describe.
@Suite(.tags(.slow), .enabled(if: SchemaValidator.available)) struct SchemaTests {
    @Test func everyCommandsJSONMatchesTheSchema() throws {
        let dir = try TemporaryDirectory()
        var files: [String] = []
        func save(_ args: [String], _ name: String) throws {
            let r = try CLI.run(args)
            #expect(r.status == 0 || r.status == 1, "\(args): \(r.stderr)")
            let path = dir.file("\(files.count)-\(name).json")
            try r.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            files.append(path)
        }
        let m = Repository.fixtures + "/MergeState"
        var stores = [
            "AppGroup", "Purged", "NoModelCache", "WALPending", "MergeState", "CloudKit", "WALSaves", "WALReset",
        ].map { Repository.fixtures + "/\($0)/Tasks.sqlite" }
        if RealStores.available { stores += [RealStores.photos, RealStores.swiftData] }
        for store in stores {
            for command in ["info", "transactions", "changes", "entities", "authors", "check", "timeline", "cloudkit"] {
                try save([command, store], command)
            }
            try save(["transactions", store, "--format", "ndjson"], "transactions-nd")
            try save(["changes", store, "--format", "ndjson"], "changes-nd")
            try save(["export", store], "export")
            try save(["export", store, "--format", "timesketch", "--labels"], "timesketch")
            try save(["info", store, "--hash"], "info-hash")
            try save(["deleted", store], "deleted")
            try save(["deleted", store, "--format", "ndjson"], "deleted-nd")
            try save(
                ["show", store, String(try CLI.run(["info", store]).json()["lastTransactionNumber"] as? Int ?? 1)],
                "show")
            let entity = store.hasSuffix("Photos.sqlite") ? "Album" : store.hasSuffix("default.store") ? "Item" : "Task"
            try save(["entities", store, "--entity", entity], "entity")
            try save(["purge", store, "--before", "tx:25"], "purge")
            try save(["actors", store], "actors")
            if FileManager.default.fileExists(atPath: store + "-wal") {
                try save(["saves", store, "--slots"], "saves")
                try save(["saves", store, "--format", "ndjson"], "saves-nd")
                try save(["recover", store], "recovered")
                try save(["info", store, "--at-save", "1"], "info-at-save")
                try save(["transactions", store, "--at-save", "1", "--format", "ndjson"], "transactions-at-save")
                try save(["export", store, "--at-save", "1"], "export-at-save")
                try save(["export", store, "--at-save", "1", "--format", "timesketch"], "timesketch-at-save")
                try save(
                    [
                        "object", store, "--at-save", "1",
                        store.hasSuffix("Photos.sqlite")
                            ? "Asset/p1" : store.hasSuffix("default.store") ? "Item/p1" : "Task/p1",
                    ],
                    "object-at-save")
                try save(["changes", store, "--values", "--format", "ndjson"], "changes-values")
                try save(["export", store, "--values"], "export-values")
                try save(["export", store, "--values", "--format", "timesketch"], "timesketch-values")
                try save(
                    [
                        "show", store,
                        String(try CLI.run(["info", store]).json()["lastTransactionNumber"] as? Int ?? 1), "--values",
                    ], "show-values")
            }
        }
        for layout in PlaceFixtures.layouts {
            let (place, _) = try PlaceFixtures.write(layout, into: dir.file("places"))
            try save(["stores", place, "--format", "json"], "stores-\(layout)")
        }
        try save(
            [
                "actors", m + "/Tasks.sqlite", "--defaults", m + "/tokens.plist", "--defaults", m + "/phtk.plist",
                "--token", "x=" + m + "/corrupt-token.data", "--actor", "never", "--batch-actor", "importer",
            ], "actors-all")
        try save(
            [
                "timeline", m + "/Tasks.sqlite", "--defaults", m + "/tokens.plist", "--defaults", m + "/phtk.plist",
                "--token", "x=" + m + "/corrupt-token.data", "--strategy", "phtk-2",
            ], "timeline-markers")
        try save(
            [
                "timeline", Repository.fixtures + "/Purged/Tasks.sqlite", "--token",
                "widget=" + Repository.fixtures + "/Purged/widget-token.data",
                "--before", "tx:99",
            ], "timeline-after-last")
        // CloudKit: a purge past the exporter's position, cleaners that expire it, every variant of the tables.
        let ck = Repository.fixtures + "/CloudKit"
        try save(["purge", ck + "/Tasks.sqlite", "--before", "tx:29", "--breakdown"], "purge-cloudkit")
        try save(
            [
                "actors", ck + "/Tasks.sqlite", "--defaults", ck + "/swiftdata.plist", "--token",
                "app=" + ck + "/swiftdata-token.json",
                "--now", "2025-03-20T00:00:00Z",
            ], "actors-cloudkit")
        let variants = try CloudKitCLITests.variants()
        for v in CloudKitFixtures.variants {
            try save(["cloudkit", variants.path + "/\(v.name)/Tasks.sqlite"], "cloudkit-\(v.name)")
            try save(
                ["check", variants.path + "/\(v.name)/Tasks.sqlite", "--max-export-pending", "0"], "check-\(v.name)")
        }
        // One object's life, found and gone, labelled; diff; watch's lines; changes labelled.
        let later = Repository.fixtures + "/Later/Tasks.sqlite"
        try save(["object", later, "Task/p26", "--labels"], "object")
        try save(["object", later, "Task/p12", "--labels"], "object-deleted")
        try save(["object", later, "Project/p1"], "object-plain")
        try save(["object", later, "Task/p3", "--format", "ndjson"], "object-nd")
        try save(["diff", Repository.fixtures + "/AppGroup/Tasks.sqlite", later], "diff")
        try save(["diff", later, later], "diff-identical")
        try save(["changes", later, "--labels", "--format", "ndjson"], "changes-labels")
        try save(["show", later, "37", "--labels"], "show-labels")
        try save(["watch", later, "--since", "tx:30", "--limit", "3"], "watch")
        if RealStores.available {
            try save(["object", RealStores.photos, "Asset/p1", "--labels"], "object-photos")
            try save(["object", RealStores.swiftData, "CraftingRecipe/p3", "--labels"], "object-swiftdata")
            try save(
                ["watch", RealStores.swiftData, "--since", "tx:30", "--limit", "3", "--labels"], "watch-swiftdata")
        }
        try save(["token", m + "/token.data", "--store", m + "/Tasks.sqlite"], "token")
        try save(["token", m + "/foreign-token.data", "--store", m + "/Tasks.sqlite"], "token-foreign")
        try save(["token", m + "/multi-store-token.data"], "token-plain")
        try save(
            [
                "repair-defaults", m + "/tokens.plist", "--actor", "lastHistoryToken", "--to", "tx:3", "--store",
                m + "/Tasks.sqlite",
            ], "repair")
        try save(
            ["repair-defaults", m + "/phtk.plist", "--actor", "widget", "--to-latest", "--store", m + "/Tasks.sqlite"],
            "repair-date")
        try save(
            [
                "check", Repository.fixtures + "/Purged/Tasks.sqlite", "--defaults",
                Repository.fixtures + "/Purged/defaults.plist",
            ], "check-errors")
        let copy = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: m + "/Tasks.sqlite", toPath: copy.file("Tasks.sqlite"))
        let executed = try CLI.run([
            "purge", copy.file("Tasks.sqlite"), "--before", "tx:10", "--execute", "--yes", "--format", "ndjson",
        ])
        let resultLine = try #require(executed.stdout.split(separator: "\n").last)
        try String(resultLine).write(toFile: dir.file("purge-result.json"), atomically: true, encoding: .utf8)
        files.append(dir.file("purge-result.json"))
        try save(
            ["provoke", "behind", m + "/Tasks.sqlite", "--actor", "widget", "--defaults", m + "/phtk.plist"],
            "provoke-behind")
        try save(
            [
                "provoke", "corrupt-token", ck + "/Tasks.sqlite", "--actor", "app", "--defaults",
                ck + "/swiftdata.plist",
            ], "provoke-corrupt")
        try save(["provoke", "cloudkit-reset", ck + "/Tasks.sqlite"], "provoke-cloudkit")
        let provoked = try TemporaryDirectory()
        for name in ["Tasks.sqlite", "token.data"] {
            try FileManager.default.copyItem(atPath: m + "/" + name, toPath: provoked.file(name))
        }
        try save(
            [
                "provoke", "foreign-token", provoked.file("Tasks.sqlite"), "--actor", "app", "--token",
                "app=" + provoked.file("token.data"), "--execute",
            ],
            "provoke-executed")
        try save(["provoke", "--undo", provoked.file("Tasks.sqlite")], "provoke-undo")

        let r = try SchemaValidator.validate(files)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("ok ") }.count == files.count)
    }

    @Test func anUndescribedFieldFailsValidation() throws {
        let dir = try TemporaryDirectory()
        let info = try CLI.run(["info", Repository.fixtures + "/AppGroup/Tasks.sqlite"]).stdout
        let extended = info.replacingOccurrences(of: "\"kind\":\"info\",", with: "\"kind\":\"info\",\"newField\":1,")
        try extended.write(toFile: dir.file("extended.json"), atomically: true, encoding: .utf8)
        let change = try CLI.run([
            "changes", Repository.fixtures + "/AppGroup/Tasks.sqlite", "--format", "ndjson", "--limit", "1",
        ]).stdout
        try change.replacingOccurrences(of: "\"changeID\"", with: "\"extra\":true,\"changeID\"").write(
            toFile: dir.file("change.ndjson"), atomically: true, encoding: .utf8)
        for file in ["extended.json", "change.ndjson"] {
            let r = try SchemaValidator.validate([dir.file(file)])
            #expect(r.status == 1, "\(file) validated: \(r.stdout)")
        }
    }

    @Test func schemaIsGeneratedFromItsScript() throws {
        let dir = try TemporaryDirectory()
        let schemas = Repository.root.appendingPathComponent("schemas").path
        try FileManager.default.copyItem(atPath: schemas + "/generate.py", toPath: dir.file("generate.py"))
        _ = try CLI.run(["python3", dir.file("generate.py")], executable: "/usr/bin/env")
        #expect(
            FileManager.default.contents(atPath: dir.file("cdhist.schema.json"))
                == FileManager.default.contents(atPath: schemas + "/cdhist.schema.json"))
    }
}

/// schemas/validate.py through python3's jsonschema.
enum SchemaValidator {
    static let available: Bool = {
        guard let r = try? CLI.run(["python3", "-c", "import jsonschema"], executable: "/usr/bin/env"), r.status == 0
        else {
            print("NOTICE: python3 with jsonschema not found; JSON schema validation is skipped (.ci/run installs it)")
            return false
        }
        return true
    }()

    static func validate(_ files: [String]) throws -> CLI.Result {
        try CLI.run(
            ["python3", Repository.root.appendingPathComponent("schemas/validate.py").path] + files,
            executable: "/usr/bin/env")
    }
}
