import Foundation
import GRDB
import HistoryKit
import TestSupport
import Testing

/// What each cleaner would delete, by `cdhist actors`, against a model of its library's code
/// written here apart (the cut-off as the library computes it, then a count in SQL): on the
/// fixture and every shared real store, with the merge positions kept under each library's
/// own key format, in five scenarios (all dated, one undated, one undated with the others
/// recent, none dated, one batch author).
@Suite(.tags(.slow), .serialized) struct CleanerScenarioTests {
    static var stores: [String] {
        [Repository.fixtures + "/MergeState/Tasks.sqlite"]
            + (RealStores.available ? [RealStores.photos, RealStores.photos15, RealStores.swiftData] : [])
    }

    /// An actor of a scenario: its position (a transaction's timestamp), if it has one.
    struct Actor {
        var name: String
        var date: Double?
        var batch = false
    }

    /// Each library's key for an actor's date, as its source writes it.
    static func key(_ strategy: CleanerStrategy, actor: String, storeUUID: String) -> String? {
        switch strategy {
        case .apple, .apple604800, .swiftsync: return nil
        case .phtk100, .phtk100Manual, .phtk104, .phtk2, .phtk2Manual:
            return "PersistentHistoryTrackingKit.lastToken.\(actor)"
        case .fatbobman, .fatbobmanDemo: return "PersistentHistoryTracker.lastToken.\(actor)"
        case .swiftlee: return "lastHistoryTransactionTimeStamp-\(actor)"
        case .studapp: return "lastHistoryTransactionTimestamp-\(actor)"
        case .appwise: return "persistent-history-tracking:\(storeUUID)-\(actor)"
        }
    }

    /// The cut-off and author filter each library's code computes (nil cut: no purge; an
    /// infinite one: every date).
    static func model(_ strategy: CleanerStrategy, _ actors: [Actor], now: Double) -> (cut: Double?, authors: [String]?)
    {
        let week = 604_800.0
        let names = actors.map(\.name)
        func earliest(_ a: [Actor]) -> Double? { a.compactMap(\.date).min() }
        // getLastCommonTransactionTimestamp of PHTK 1.0.0–1.0.3 (and fatbobman's article).
        func common(_ a: [Actor]) -> Double? {
            guard let min = earliest(a) else { return nil }
            if a.allSatisfy({ $0.date != nil }) { return min }
            return min < now - week ? now - week : nil
        }
        let nonBatch = actors.filter { !$0.batch }
        switch strategy {
        case .apple:
            // Calendar.current: the local time zone, as cdhist takes it without --utc.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone.current
            return (
                calendar.date(byAdding: .day, value: -7, to: Date(timeIntervalSinceReferenceDate: now))?
                    .timeIntervalSinceReferenceDate, nil
            )
        case .apple604800: return (now - week, nil)
        case .swiftsync: return (.infinity, ["com.github.3lvis.SwiftSync.inbound"])
        case .phtk100: return (names.isEmpty ? nil : common(nonBatch), names)
        case .phtk100Manual, .fatbobman: return (names.isEmpty ? nil : common(actors), names)
        case .phtk104: return (names.isEmpty ? nil : earliest(nonBatch) ?? now - week, names)
        case .phtk2:
            guard !nonBatch.isEmpty, nonBatch.allSatisfy({ $0.date != nil }) else { return (nil, names) }
            return (earliest(nonBatch), names)
        case .phtk2Manual: return (earliest(actors), names)
        case .fatbobmanDemo: return (names.isEmpty ? nil : max(earliest(actors) ?? now - week, now - week), names)
        case .swiftlee, .studapp:
            guard !actors.isEmpty, actors.allSatisfy({ $0.date != nil }) else { return (nil, nil) }
            return (earliest(actors), nil)
        case .appwise:
            let expiry = now - week
            guard !actors.isEmpty, actors.allSatisfy({ $0.date != nil }), let min = earliest(actors), min > expiry
            else { return (expiry, nil) }
            return (min, nil)
        }
    }

    /// Transactions before `cut` (by `authors` when given), counted in SQL; an infinite `cut`: at every date.
    static func count(_ db: Database, cut: Double, authors: [String]?) throws -> Int {
        let columns = Set(try db.columns(in: "ATRANSACTION").map { $0.name.uppercased() })
        var parts: [String] = []
        if columns.contains("ZAUTHORTS") {
            parts.append("(SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.ZAUTHORTS)")
        }
        if columns.contains("ZAUTHOR") { parts.append("t.ZAUTHOR") }
        let author = parts.isEmpty ? "NULL" : parts.count == 1 ? parts[0] : "COALESCE(\(parts.joined(separator: ", ")))"
        var sql =
            cut.isFinite
            ? "SELECT COUNT(*) FROM ATRANSACTION t WHERE t.ZTIMESTAMP < ?"
            : "SELECT COUNT(*) FROM ATRANSACTION t WHERE 1"
        var arguments: [DatabaseValueConvertible] = cut.isFinite ? [cut] : []
        if let authors {
            sql += " AND \(author) IN (\(authors.map { _ in "?" }.joined(separator: ", ")))"
            arguments += authors as [DatabaseValueConvertible]
        }
        return try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
    }

    @Test(arguments: stores) func everyCleanerDeletesWhatItsLibrarysCodeDeletes(store: String) throws {
        let queue = try LogicalDump.readOnlyQueue(store)
        defer { try? queue.close() }
        let (authors, times, storeUUID) = try queue.read { db -> ([String], [Double], String) in
            let columns = Set(try db.columns(in: "ATRANSACTION").map { $0.name.uppercased() })
            let author =
                columns.contains("ZAUTHORTS")
                ? "(SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.ZAUTHORTS)" : "t.ZAUTHOR"
            let authors = try String.fetchAll(
                db,
                sql:
                    """
                    SELECT a FROM (SELECT \(author) AS a, COUNT(*) AS n FROM ATRANSACTION t GROUP BY a) WHERE a \
                    IS NOT NULL ORDER BY n DESC, a LIMIT 3
                    """
            )
            let times = try Double.fetchAll(db, sql: "SELECT ZTIMESTAMP FROM ATRANSACTION ORDER BY Z_PK")
            return (authors, times, try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA") ?? "")
        }
        try #require(times.count >= 10, "\(store): too few transactions")
        // A store with fewer authors (SwiftData's writes none) gets actors that wrote nothing.
        let actorNames = (authors + ["widget", "shareExtension", "importer"].filter { !authors.contains($0) }).prefix(3)
            .map { $0 }
        // Positions as in a Photos store's #300, #489 and #499 of 516, and now a day after the newest.
        func at(_ fraction: Double) -> Double { times[min(times.count - 1, Int(Double(times.count) * fraction))] }
        let now = (times.max() ?? 0) + 86400
        let third = actorNames[2]
        let scenarios: [(String, [Actor])] = [
            (
                "all dated",
                [
                    Actor(name: actorNames[0], date: at(0.58)), Actor(name: actorNames[1], date: at(0.95)),
                    Actor(name: third, date: at(0.97)),
                ]
            ),
            (
                "one undated",
                [
                    Actor(name: actorNames[0], date: at(0.58)), Actor(name: actorNames[1], date: at(0.95)),
                    Actor(name: third),
                ]
            ),
            (
                "one undated, others recent",
                [
                    Actor(name: actorNames[0], date: now - 3600), Actor(name: actorNames[1], date: now - 7200),
                    Actor(name: third),
                ]
            ),
            ("none dated", [Actor(name: actorNames[0]), Actor(name: actorNames[1]), Actor(name: third)]),
            (
                "one batch",
                [
                    Actor(name: actorNames[0], date: at(0.58)), Actor(name: actorNames[1], date: at(0.95)),
                    Actor(name: third, batch: true),
                ]
            ),
        ]
        let dir = try TemporaryDirectory()
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let nowText = iso.string(from: Date(timeIntervalSinceReferenceDate: now))
        for (scenario, actors) in scenarios {
            for strategy in CleanerStrategy.allCases {
                // The positions under the library's own keys; the undated declared, the batch author as one.
                var plist: [String: PlistValue] = [:]
                for a in actors where !a.batch {
                    if let date = a.date, let key = Self.key(strategy, actor: a.name, storeUUID: storeUUID) {
                        plist[key] = .date(date)
                    }
                }
                let path = dir.file("\(strategy.rawValue).plist")
                try Data(PropertyList.encodeBinary(.dictionary(plist))).write(to: URL(fileURLWithPath: path))
                var arguments = ["actors", store, "--defaults", path, "--now", nowText]
                for a in actors {
                    arguments += a.batch ? ["--batch-actor", a.name] : (a.date == nil ? ["--actor", a.name] : [])
                }
                let r = try CLI.run(arguments)
                #expect(r.status == 0, "\(store) \(scenario) \(strategy): \(r.stderr)")
                let cleaners = try #require(try r.json()["cleaners"] as? [[String: Any]])
                let shown = try #require(cleaners.first { $0["strategy"] as? String == strategy.rawValue })
                let model = Self.model(strategy, actors, now: now)
                let expected = try model.cut.map { cut in
                    try queue.read { try Self.count($0, cut: cut, authors: model.authors) }
                }
                #expect(
                    shown["transactionsToDelete"] as? Int == expected,
                    """
                    \(store), \(scenario), \(strategy.rawValue): cdhist says \
                    \(shown["transactionsToDelete"] ?? "nil") (\(shown["reason"] ?? "")), the library's code \
                    \(expected.map(String.init) ?? "no purge")
                    """
                )
            }
        }
    }

    /// The Photos store with PHTK positions at #300, #489 and #499 (by authors [0,0], [0,1], [1,0]), evaluated
    /// the day after its newest transaction: the counts each library's code gives there.
    @Test(.enabled(if: RealStores.available)) func photosWithPositionsAt300_489_499() throws {
        let queue = try LogicalDump.readOnlyQueue(RealStores.photos)
        var times: [Int: Double] = [:]
        try queue.read { db in
            for n in [300, 489, 499] {
                times[n] = try Double.fetchOne(
                    db, sql: "SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK = ?", arguments: [n])
            }
        }
        try queue.close()
        let dir = try TemporaryDirectory()
        func run(_ dated: [(String, Int)], _ extra: [String]) throws -> [String: (count: Int?, resets: Bool)] {
            let plist = Dictionary(
                uniqueKeysWithValues: dated.map {
                    ("PersistentHistoryTrackingKit.lastToken.\($0.0)", PlistValue.date(times[$0.1] ?? 0))
                })
            try Data(PropertyList.encodeBinary(.dictionary(plist))).write(
                to: URL(fileURLWithPath: dir.file("phtk.plist")))
            let r = try CLI.run(
                ["actors", RealStores.photos, "--defaults", dir.file("phtk.plist"), "--now", "2022-02-05T00:00:00Z"]
                    + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let cleaners = try #require(try r.json()["cleaners"] as? [[String: Any]])
            return Dictionary(
                uniqueKeysWithValues: cleaners.map {
                    (
                        $0["strategy"] as? String ?? "",
                        ($0["transactionsToDelete"] as? Int, $0["resetsKeysAfterPurge"] as? Bool ?? false)
                    )
                })
        }
        let all = try run([("[0,0]", 300), ("[0,1]", 489), ("[1,0]", 499)], [])
        #expect(all["fatbobman-demo"]?.count == 452 && all["fatbobman"]?.count == 270)
        #expect(all["swiftlee"]?.resets == true && all["appwise"]?.resets == true && all["studapp"]?.resets == false)
        let undated = try run([("[0,0]", 300), ("[0,1]", 489)], ["--actor", "[1,0]"])
        #expect(undated["phtk-2-manual"]?.count == 270 && undated["phtk-2"]?.count == nil)
        let batch = try run([("[0,0]", 300), ("[0,1]", 489)], ["--batch-actor", "[1,0]"])
        #expect(batch["fatbobman"]?.count == 452 && batch["swiftlee"]?.count == nil && batch["studapp"]?.count == nil)
        let none = try run([], [])
        #expect(none["phtk-1.0.4"]?.count == nil && none["apple"]?.count == 484)
    }

    /// Dates kept in whole seconds (an XML plist): the cut-off may be up to a second later, and
    /// what falls in that second is said as a range, in `actors` and in the purge preview.
    @Test(.enabled(if: RealStores.available)) func wholeSecondDatesGiveARange() throws {
        let queue = try LogicalDump.readOnlyQueue(RealStores.photos)
        defer { try? queue.close() }
        let (date, exact, later) = try queue.read { db -> (Double, Int, Int) in
            // #489's timestamp, as an XML plist keeps it; the count before it and a second later.
            let t = try Double.fetchOne(db, sql: "SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK = 489") ?? 0
            let whole = t.rounded(.down)
            func count(_ cut: Double) throws -> Int { try Self.count(db, cut: cut, authors: nil) }
            return (whole, try count(whole), try count(whole + 1))
        }
        try #require(later > exact, "no transaction in the second after #489's")
        let dir = try TemporaryDirectory()
        try Data(try PropertyList.encodeXML(.dictionary(["lastHistoryTransactionTimestamp-app": .date(date)])))
            .write(to: URL(fileURLWithPath: dir.file("xml.plist")))
        let args = [RealStores.photos, "--defaults", dir.file("xml.plist"), "--now", "2022-02-05T00:00:00Z"]
        let doc = try CLI.run(["actors"] + args).json()
        let studapp = try #require(
            (doc["cleaners"] as? [[String: Any]])?.first { $0["strategy"] as? String == "studapp" })
        #expect(
            studapp["transactionsToDelete"] as? Int == exact && studapp["transactionsToDeleteAtMost"] as? Int == later)
        let preview = try CLI.run(
            ["purge", "--strategy", "studapp", "--format", "table"] + args, environment: ["COLUMNS": "200"])
        #expect(preview.stdout.contains("so the cleaner deletes \(exact)–\(later) transactions"), "\(preview.stdout)")
    }
}
