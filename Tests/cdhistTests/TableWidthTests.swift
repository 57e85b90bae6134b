import Foundation
import HistoryFixtures
import TestSupport
import Testing

/// Every table command at 60, 80 and 120 columns (COLUMNS, as a terminal sets it) on the fixtures and the
/// real stores: no line is wider than the width, no number is cut, and every number of the JSON is in the table.
@Suite(.tags(.slow)) struct TableWidthTests {
    struct Store {
        var path: String
        /// Merge state for actors, purge, check and timeline.
        var mergeState: [String]
        var show: String
        var entity: String
    }

    static var stores: [Store] {
        let f = Repository.fixtures
        var stores = [
            Store(
                path: f + "/MergeState/Tasks.sqlite",
                mergeState: [
                    "--defaults", f + "/MergeState/phtk.plist", "--token",
                    "intents=" + f + "/MergeState/foreign-token.data",
                    "--actor", "app", "--actor", "never",
                ], show: "4", entity: "Task"),
            Store(
                path: f + "/Purged/Tasks.sqlite",
                mergeState: [
                    "--defaults", f + "/Purged/defaults.plist", "--token", "widget=" + f + "/Purged/widget-token.data",
                ],
                show: "25", entity: "Document"),
            Store(
                path: f + "/CloudKit/Tasks.sqlite",
                mergeState: ["--defaults", f + "/CloudKit/swiftdata.plist", "--key-prefix", "historyToken."],
                show: "29", entity: "Photo"),
        ]
        if RealStores.available {
            stores += [
                Store(
                    path: RealStores.photos, mergeState: ["--token", RealStores.photosToken], show: "2", entity: "Asset"
                ),
                Store(path: RealStores.swiftData, mergeState: [], show: "1", entity: "Item"),
            ]
        }
        return stores
    }

    static func commands(_ s: Store) -> [[String]] {
        [
            ["info", s.path, "--change-types"], ["transactions", s.path], ["changes", s.path, "--limit", "80"],
            ["show", s.path, s.show],
            ["entities", s.path], ["entities", s.path, "--entity", s.entity], ["authors", s.path],
            ["actors", s.path] + s.mergeState, ["purge", s.path, "--before", "tx:30", "--breakdown"] + s.mergeState,
            ["check", s.path] + s.mergeState, ["timeline", s.path] + s.mergeState, ["cloudkit", s.path],
        ]
    }

    /// A number cut short shows as digits followed by `…` (a range `#1…#34` is not, nor a digest shortened to `9H63MTM4…`).
    static let cutNumber = try! NSRegularExpression(
        pattern: "(?:^|[^A-Za-z0-9+/=#])#?[0-9]+…(?!#)", options: .anchorsMatchLines)

    @Test(arguments: [60, 80, 120]) func everyTableFitsItsWidth(width: Int) throws {
        for store in Self.stores {
            for command in Self.commands(store) {
                let r = try CLI.run(command + ["--format", "table", "--utc"], environment: ["COLUMNS": String(width)])
                #expect(r.status == 0 || r.status == 1, "\(command): \(r.stderr)")
                for line in r.lines where line.count > width {
                    Issue.record(
                        "\(command.joined(separator: " ")) at \(width) columns: \(line.count) characters: \(line)")
                }
                let text = r.stdout as NSString
                if let cut = Self.cutNumber.firstMatch(in: r.stdout, range: NSRange(location: 0, length: text.length)) {
                    Issue.record(
                        """
                        \(command.joined(separator: " ")) at \(width): a number is cut: \
                        \(text.substring(with: NSRange(location: max(0, cut.range.location - 20), length: 30)))
                        """
                    )
                }
            }
        }
    }

    /// The numbers of the listings are whole in the table: every transaction number and change count,
    /// every change ID and primary key, every author's counts.
    /// A path wider than the line breaks between its folders, never inside the file name.
    @Test func pathsBreakAtTheirSlashes() throws {
        let dir = try TemporaryDirectory()
        for extra in 0..<24 {
            let folder = dir.file("AppGroup" + String(repeating: "x", count: extra) + "/Library/ApplicationSupport")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let store = folder + "/Tasks.sqlite"
            try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/Tasks.sqlite", toPath: store)
            for width in [60, 80] {
                let lines = try CLI.run(["info", store, "--format", "table"], environment: ["COLUMNS": String(width)])
                    .lines
                #expect(
                    !lines.contains { $0.hasSuffix("Tasks.") || $0.hasSuffix("Tasks") }, "\(width): \(lines.prefix(4))")
                #expect(lines.allSatisfy { $0.count <= width })
            }
        }
    }

    @Test(arguments: [60, 80]) func listedNumbersAreWhole(width: Int) throws {
        for store in Self.stores {
            func table(_ args: [String]) throws -> Set<String> {
                let out = try CLI.run(args + ["--format", "table", "--utc"], environment: ["COLUMNS": String(width)])
                    .stdout
                return Set(out.components(separatedBy: CharacterSet(charactersIn: " \n;,()#…")).filter { !$0.isEmpty })
            }
            let transactions = try #require(
                try CLI.run(["transactions", store.path]).json()["transactions"] as? [[String: Any]])
            let words = try table(["transactions", store.path])
            for t in transactions {
                for key in ["transactionNumber", "changeCount"] {
                    let n = try #require(t[key] as? Int)
                    #expect(
                        words.contains(String(n)), "\(store.path) transactions at \(width): \(key) \(n) is not whole")
                }
            }
            let changes = try #require(
                try CLI.run(["changes", store.path, "--limit", "80"]).json()["changes"] as? [[String: Any]])
            let changeWords = try table(["changes", store.path, "--limit", "80"])
            for c in changes {
                for key in ["changeID", "transactionNumber", "entityPK"] {
                    let n = try #require(c[key] as? Int)
                    #expect(
                        changeWords.contains(String(n)), "\(store.path) changes at \(width): \(key) \(n) is not whole")
                }
            }
            let authors = try #require(
                try CLI.run(["authors", store.path, "--by", "context"]).json()["contextNames"] as? [[String: Any]])
            let authorWords = try table(["authors", store.path, "--by", "context"])
            for a in authors {
                for key in ["transactionCount", "changeCount", "firstTransactionNumber", "lastTransactionNumber"] {
                    let n = try #require(a[key] as? Int)
                    #expect(
                        authorWords.contains(String(n)), "\(store.path) authors at \(width): \(key) \(n) is not whole")
                }
            }
        }
    }
}
