import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit

@Suite struct MergeKeyTests {
    @Test func everyKeyFormatIsRecognisedCaseInsensitively() {
        #expect(
            MergeKeyFormat.parse("PersistentHistoryTrackingKit.lastToken.app")?.format == .persistentHistoryTrackingKit)
        #expect(MergeKeyFormat.parse("persistenthistorytrackingkit.LASTTOKEN.app")?.actor == "app")
        #expect(MergeKeyFormat.parse("PersistentHistoryTracker.lastToken.widget")?.format == .persistentHistoryTracker)
        #expect(MergeKeyFormat.parse("lastHistoryTransactionTimestamp-mainApp")?.actor == "mainApp")
        #expect(
            MergeKeyFormat.parse("lastHistoryTransactionTimeStamp-mainApp")?.format == .lastHistoryTransactionTimestamp)
        let appwise = MergeKeyFormat.parse("persistent-history-tracking:6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87-share-ext")
        #expect(appwise?.format == .appwiseCore)
        #expect(appwise?.actor == "share-ext")
        #expect(appwise?.storeUUID == "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87")
        #expect(MergeKeyFormat.parse("myapp.merged.", customPrefixes: ["myapp.merged."]) == nil)
        #expect(MergeKeyFormat.parse("MyApp.Merged.widget", customPrefixes: ["myapp.merged."])?.actor == "widget")
        #expect(MergeKeyFormat.parse("AppleLanguages") == nil)
        #expect(MergeKeyFormat.parse("PersistentHistoryTrackingKit.lastToken.") == nil)
    }

    @Test func defaultsPlistsInBothFormats() throws {
        let dir = try TemporaryDirectory()
        let files = MergeStateFixtures.files()
        for name in ["phtk.plist", "xml.plist", "tokens.plist", "appwise.plist"] {
            try Data(files[name]!).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        let binary = try DefaultsReader.read(path: dir.file("phtk.plist"), storeUUID: Scenarios.appGroupUUID)
        #expect(binary.format == .binary)
        #expect(binary.records.map(\.actor) == ["app", "shareExtension", "widget"])
        #expect(binary.ignoredKeyCount == 4)
        #expect(binary.records[0].position == .date(Scenarios.appGroupTime(34), wholeSeconds: false))
        #expect(binary.records[0].source == "\(dir.file("phtk.plist")) [PersistentHistoryTrackingKit.lastToken.app]")

        let xml = try DefaultsReader.read(path: dir.file("xml.plist"), storeUUID: Scenarios.appGroupUUID)
        #expect(xml.format == .xml)
        #expect(
            xml.records.map(\.position)
                == binary.records.map { record in
                    guard case .date(let d, _) = record.position else { return record.position }
                    return .date(d.rounded(.down), wholeSeconds: true)
                })

        let tokens = try DefaultsReader.read(path: dir.file("tokens.plist"), storeUUID: Scenarios.appGroupUUID)
        #expect(tokens.records.map(\.actor) == ["lastHistoryToken", "shareHistoryToken", "widgetHistoryToken"])
        #expect(
            tokens.records[0].position == .token(HistoryToken(storeUUID: Scenarios.appGroupUUID, transactionNumber: 34))
        )
        guard case .unreadable(let why) = tokens.records[1].position else {
            Issue.record("expected unreadable")
            return
        }
        #expect(why.contains("corrupt token archive"))
        #expect(
            tokens.records[2].position
                == .token(HistoryToken(storeUUID: MergeStateFixtures.foreignUUID, transactionNumber: 12)))

        let appwise = try DefaultsReader.read(path: dir.file("appwise.plist"), storeUUID: Scenarios.appGroupUUID)
        #expect(appwise.records.map(\.actor) == ["app", "widget"])
        #expect(appwise.otherStoreKeys == ["persistent-history-tracking:\(MergeStateFixtures.foreignUUID)-widget"])

        #expect(throws: MergeStateError.fileNotFound(path: dir.file("none.plist"))) {
            try DefaultsReader.read(path: dir.file("none.plist"), storeUUID: nil)
        }
        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: dir.file("bad.plist")))
        #expect(throws: MergeStateError.self) { try DefaultsReader.read(path: dir.file("bad.plist"), storeUUID: nil) }
        try Data(PropertyList.encodeBinary(.array([]))).write(to: URL(fileURLWithPath: dir.file("array.plist")))
        #expect(throws: MergeStateError.notADictionary(path: dir.file("array.plist"))) {
            try DefaultsReader.read(path: dir.file("array.plist"), storeUUID: nil)
        }
    }

    @Test func tokenFilesAndTheirFailures() throws {
        let dir = try TemporaryDirectory()
        for (name, bytes) in MergeStateFixtures.files() where name.hasSuffix(".data") {
            try Data(bytes).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        #expect(
            try TokenFileReader.read(path: dir.file("token.data"), actor: "app").position
                == .token(HistoryToken(storeUUID: Scenarios.appGroupUUID, transactionNumber: 31)))
        let multi = try TokenFileReader.read(path: dir.file("multi-store-token.data"), actor: "x").position
        #expect(
            multi
                == .token(
                    HistoryToken(transactionNumbers: [Scenarios.appGroupUUID: 29, MergeStateFixtures.foreignUUID: 4])))
        guard
            case .unreadable(let corrupt) = try TokenFileReader.read(path: dir.file("corrupt-token.data"), actor: "x")
                .position,
            case .unreadable(let wrongClass) = try TokenFileReader.read(path: dir.file("date-archive.data"), actor: "x")
                .position
        else {
            Issue.record("expected unreadable positions")
            return
        }
        #expect(corrupt.hasPrefix("\(dir.file("corrupt-token.data")): corrupt token archive"))
        #expect(wrongClass == "\(dir.file("date-archive.data")): an archive of NSDate, not an NSPersistentHistoryToken")
        #expect(throws: MergeStateError.self) { try TokenFileReader.read(path: dir.file("none.data"), actor: "x") }
    }

    @Test func groupContainerDiscovery() throws {
        let root = Repository.fixtures + "/GroupContainer/" + MergeStateFixtures.containerUUID
        let container = try GroupContainer.discover(root)
        #expect(container.groupID == "group.com.example.tasks")
        #expect(container.stores.map { URL(fileURLWithPath: $0).lastPathComponent } == ["Tasks.sqlite"])
        #expect(container.stores[0].contains("/Library/Application Support/"))
        #expect(
            container.defaultsPlists.map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "group.com.example.tasks.plist"
            ])
        #expect(container.tokenFiles.map { URL(fileURLWithPath: $0).lastPathComponent } == ["token.data"])
        #expect(throws: MergeStateError.self) { try GroupContainer.discover(root + "/nope") }
    }
}

/// Each cleaner's rule as its library's code computes it (the sources each rule's file cites).
@Suite struct CleanerStrategyTests {
    // now = day 30; week ago = day 23. Dates in days for readability.
    let day = 86400.0
    var now: Double { 30 * day }

    private func cut(
        _ s: CleanerStrategy, _ dates: [(String, Double?)], batch: Set<String> = [], retention: Double? = nil
    ) -> CleanerCutoff {
        let actors = dates.map {
            CleanerInput.Actor(name: $0.0, date: $0.1.map { $0 * day }, isBatch: batch.contains($0.0))
        }
        return s.cutoff(
            CleanerInput(actors: actors, now: now, settings: CleanerSettings(retention: (retention ?? 7) * day)))
    }

    @Test func apple() {
        // In UTC, seven calendar days are 604,800 s: both listings cut at day 23.
        for s in [CleanerStrategy.apple, .apple604800] {
            #expect(cut(s, [("app", 29)]).cutoff == 23 * day)
            #expect(cut(s, []).cutoff == 23 * day)
            #expect(cut(s, [("app", 29)]).authorFilter == nil && !cut(s, [("app", 29)]).resetsKeysAfterPurge)
            // A copy that changed the seven days.
            #expect(cut(s, [], retention: 14).cutoff == 16 * day)
            #expect(s.usesRetention)
        }
        #expect(cut(.apple, []).reason == "now − 7 calendar days in UTC")
        #expect(cut(.apple604800, []).reason == "now − 604800 s (7 days)")
        #expect(CleanerStrategy.apple.source != CleanerStrategy.apple604800.source)
    }

    /// Across the change to daylight saving time in New York (2021-03-14), Apple's current
    /// listing goes back to the same time of day a week before (an hour less than 604,800 s),
    /// the earlier listing 604,800 s.
    @Test func appleListingsAcrossADaylightSavingChange() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let now = 637_588_800.0  // 2021-03-16T12:00:00Z, 08:00 EDT
        func cut(_ s: CleanerStrategy, retention: Double = CleanerSettings.defaultRetention) -> CleanerCutoff {
            s.cutoff(
                CleanerInput(actors: [], now: now, settings: CleanerSettings(retention: retention, timeZone: newYork)))
        }
        #expect(cut(.apple).cutoff == 636_987_600)  // 2021-03-09T13:00:00Z, 08:00 EST
        #expect(cut(.apple).reason == "now − 7 calendar days in America/New_York")
        #expect(cut(.apple604800).cutoff == 636_984_000)  // 2021-03-09T12:00:00Z
        // Whole days are calendar days; any other retention is seconds.
        #expect(cut(.apple, retention: 14 * 86400).cutoff == 636_382_800)  // 2021-03-02T13:00:00Z
        #expect(cut(.apple, retention: 36 * 3600).cutoff == now - 36 * 3600)
        #expect(cut(.apple, retention: 36 * 3600).reason == "now − 36 hours")
        #expect(cut(.apple604800, retention: 14 * 86400).cutoff == now - 14 * 86400)
        // In UTC the two agree.
        let utc = CleanerInput(actors: [], now: now, settings: CleanerSettings(timeZone: CleanerSettings.utc))
        #expect(
            CleanerStrategy.apple.cutoff(utc).cutoff == 636_984_000
                && CleanerStrategy.apple604800.cutoff(utc).cutoff == 636_984_000)
    }

    /// SwiftSync deletes what its inbound author wrote, at every date, whoever the actors are.
    @Test func swiftsync() {
        for actors in [[], [("app", 29.0)], [("app", nil)]] as [[(String, Double?)]] {
            let c = cut(.swiftsync, actors)
            #expect(c.cutoff == nil && c.allDates && c.purges, "\(actors)")
            #expect(
                c.authorFilter == ["com.github.3lvis.SwiftSync.inbound"] && c.heldBackBy == nil
                    && !c.resetsKeysAfterPurge)
            #expect(c.reason == "all history by com.github.3lvis.SwiftSync.inbound, at every date")
        }
        #expect(!CleanerStrategy.swiftsync.usesRetention && cut(.swiftsync, [], retention: 1).authorFilter?.count == 1)
        #expect(CleanerStrategy.swiftsync.source.hasPrefix("3lvis/SwiftSync #663"))
        // Every other strategy has a date or does not purge.
        for s in CleanerStrategy.allCases where s != .swiftsync { #expect(!cut(s, [("app", 29)]).allDates, "\(s)") }
    }

    @Test func phtk100AndTheArticle() {
        for s in [CleanerStrategy.phtk100, .phtk100Manual, .fatbobman] {
            // All dated: the earliest, held back by its actor.
            let all = cut(s, [("app", 29), ("widget", 25)])
            #expect(all.cutoff == 25 * day && all.heldBackBy == "widget" && all.authorFilter == ["app", "widget"])
            // Some missing, earliest older than a week: now − 7 days (a retention does not change it).
            #expect(cut(s, [("app", 29), ("widget", 10), ("share", nil)], retention: 3).cutoff == 23 * day)
            // Some missing, earliest within the week: no purge.
            #expect(cut(s, [("app", 29), ("widget", 25), ("share", nil)]).cutoff == nil)
            // Nobody dated: no purge.
            #expect(cut(s, [("app", nil)]).cutoff == nil)
        }
        // A batch author: left out of the automatic cut-off; an undated actor to the manual cleaner and the article.
        #expect(cut(.phtk100, [("app", 10), ("importer", nil)], batch: ["importer"]).cutoff == 10 * day)
        #expect(cut(.phtk100Manual, [("app", 10), ("importer", nil)], batch: ["importer"]).cutoff == 23 * day)
        #expect(cut(.fatbobman, [("app", 10), ("importer", nil)], batch: ["importer"]).cutoff == 23 * day)
        // Every author is in the delete's filter, batch authors included.
        #expect(
            cut(.phtk100, [("app", 10), ("importer", nil)], batch: ["importer"]).authorFilter == ["app", "importer"])
        #expect(cut(.fatbobman, [("app", 29)]).resetsKeysAfterPurge)
        #expect(!cut(.phtk100, [("app", 29)]).resetsKeysAfterPurge)
        #expect(!cut(.fatbobman, [("app", nil)]).resetsKeysAfterPurge)
    }

    @Test func fatbobmanDemo() {
        // The later of the earliest and a week ago; with nobody dated, a week ago: it always purges.
        #expect(cut(.fatbobmanDemo, [("app", 29), ("widget", 25)]).cutoff == 25 * day)
        #expect(cut(.fatbobmanDemo, [("app", 29), ("widget", 10)]).cutoff == 23 * day)
        #expect(cut(.fatbobmanDemo, [("app", nil), ("widget", nil)]).cutoff == 23 * day)
        #expect(
            cut(.fatbobmanDemo, [("app", 29)]).resetsKeysAfterPurge
                && cut(.fatbobmanDemo, [("app", 29)]).authorFilter == ["app"])
    }

    @Test func phtk104() {
        #expect(cut(.phtk104, [("app", 29), ("widget", 25), ("share", nil)]).cutoff == 25 * day)
        #expect(cut(.phtk104, [("app", 29), ("widget", 25), ("share", nil)]).heldBackBy == "widget")
        #expect(cut(.phtk104, [("app", nil), ("widget", nil)]).cutoff == 23 * day)
        #expect(cut(.phtk104, [("app", nil)], retention: 2).cutoff == 28 * day)
        // A batch author's date does not count.
        #expect(cut(.phtk104, [("app", 29), ("importer", 5)], batch: ["importer"]).cutoff == 29 * day)
    }

    @Test func phtk2() {
        #expect(cut(.phtk2, [("app", 29), ("widget", 25)]).cutoff == 25 * day)
        #expect(cut(.phtk2, [("app", 29), ("widget", nil)]).cutoff == nil)
        #expect(cut(.phtk2, [("app", 29), ("importer", nil)], batch: ["importer"]).cutoff == 29 * day)
        #expect(cut(.phtk2, [("importer", nil)], batch: ["importer"]).cutoff == nil)
        // maximumDuration is unused in 2.x.
        #expect(cut(.phtk2, [("app", 10)], retention: 2).cutoff == 10 * day)
        #expect(cut(.phtk2, [("app", 29)]).notes.count == 2)
        // The manual cleaner passes undated actors over, batch authors included.
        #expect(cut(.phtk2Manual, [("app", 29), ("widget", nil)]).cutoff == 29 * day)
        #expect(cut(.phtk2Manual, [("app", 29), ("importer", 12)], batch: ["importer"]).cutoff == 12 * day)
        #expect(cut(.phtk2Manual, [("app", nil)]).cutoff == nil)
    }

    @Test func noActorKnownDeletesNothingWhereTheLibraryFiltersByAuthor() {
        for s in CleanerStrategy.allCases {
            let c = cut(s, [])
            if [.apple, .apple604800, .appwise].contains(s) {
                #expect(c.cutoff == 23 * day && c.authorFilter == nil, "\(s)")
            } else if s == .swiftsync {
                #expect(c.purges && c.authorFilter == ["com.github.3lvis.SwiftSync.inbound"], "\(s)")
            } else {
                #expect(c.cutoff == nil, "\(s): \(c.reason)")
            }
        }
    }

    @Test func swiftleeAndStudApp() {
        for s in [CleanerStrategy.swiftlee, .studapp] {
            let c = cut(s, [("app", 29), ("widget", 12)])
            #expect(c.cutoff == 12 * day && c.heldBackBy == "widget" && c.authorFilter == nil)
            #expect(cut(s, [("app", 29), ("widget", nil)]).cutoff == nil)
            // No batch authors in these libraries: one is a target without a date.
            #expect(cut(s, [("app", 29), ("importer", nil)], batch: ["importer"]).cutoff == nil)
        }
        #expect(cut(.swiftlee, [("app", 29)]).resetsKeysAfterPurge)
        #expect(!cut(.studapp, [("app", 29)]).resetsKeysAfterPurge)
    }

    @Test func appwise() {
        // Earliest within the week: the earliest.
        #expect(cut(.appwise, [("app", 29), ("widget", 25)]).cutoff == 25 * day)
        // Earliest older than a week: now − 7 days (the later of the two).
        #expect(cut(.appwise, [("app", 29), ("widget", 12)]).cutoff == 23 * day)
        // Anyone missing: now − 7 days; the time to live is the retention.
        #expect(cut(.appwise, [("app", 29), ("widget", nil)]).cutoff == 23 * day)
        #expect(cut(.appwise, [("app", 29), ("widget", nil)], retention: 1).cutoff == 29 * day)
        #expect(cut(.appwise, [("app", 29)]).authorFilter == nil && cut(.appwise, [("app", 29)]).resetsKeysAfterPurge)
    }
}

@Suite struct ActorStatusTests {
    let now = Scenarios.appGroupTime(34) + 86400

    /// `byGivenTime`: `now` is a time the user gave, to which lags are measured (else the store's newest transaction).
    private func analyze(
        _ scenario: String, plists: [String] = [], tokens: [(String, String)] = [], declared: [String] = [],
        batch: [String] = [], now: Double? = nil, byGivenTime: Bool = true
    ) throws -> [String: ActorReport] {
        let dir = Repository.fixtures + "/" + scenario
        let store = try HistoryStore.open(dir + "/Tasks.sqlite")
        var records: [MergeRecord] = []
        for p in plists { records += try DefaultsReader.read(path: dir + "/" + p, storeUUID: store.storeUUID).records }
        for (actor, file) in tokens { records.append(try TokenFileReader.read(path: dir + "/" + file, actor: actor)) }
        let report = try MergeStateAnalyzer(
            store: store, declared: declared, batch: batch, records: records, now: now ?? self.now,
            nowIsGiven: byGivenTime
        ).report()
        return Dictionary(report.actors.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Without a time the user gave, a copy of a store is judged by its own time: lags run to the newest
    /// transaction, however long ago that was, and no actor is stale for the copy's age.
    @Test func aCopyIsJudgedByItsOwnTime() throws {
        let years = Scenarios.appGroupTime(34) + 800 * 86400
        let given = try analyze(
            "MergeState", plists: ["stale.plist"], declared: ["app", "widget", "intents"], now: years)
        let own = try analyze(
            "MergeState", plists: ["stale.plist"], declared: ["app", "widget", "intents"], now: years,
            byGivenTime: false)
        let intents = try #require(own["intents"])
        let clocked = try #require(given["intents"])
        #expect(intents.status == .behind && clocked.status == .behind)
        #expect(intents.pending.count == clocked.pending.count)
        let oldest = try #require(intents.pending.oldestTimestamp)
        let position = try #require(intents.effectiveDate)
        #expect(intents.lag == Scenarios.appGroupTime(34) - oldest)
        #expect(intents.positionAge == Scenarios.appGroupTime(34) - position)
        #expect(clocked.lag == years - oldest)
        #expect(clocked.advice.description.contains("has not merged for"))
        #expect(!intents.advice.description.contains("has not merged for"), "\(intents.advice)")
    }

    @Test func upToDateBehindNeverMergedWritesOnly() throws {
        let a = try analyze(
            "MergeState", plists: ["phtk.plist"], declared: ["app", "widget", "shareExtension", "intents"],
            batch: ["importer"])
        #expect(a["app"]?.status == .upToDate)
        #expect(a["app"]?.lastMerged?.number == 34)
        let widget = try #require(a["widget"])
        #expect(widget.status == .behind)
        #expect(widget.lastMerged?.number == 20)
        // After #20, by others than widget: 14 transactions, 3 of them the widget's own.
        #expect(widget.pending.count == 11)
        #expect(widget.pending.byAuthor.first?.author == "app" && widget.pending.byAuthor.first?.count == 6)
        #expect(widget.pending.oldestNumber == 22)  // #21 is the widget's own
        #expect(widget.lag == now - Scenarios.appGroupTime(22))
        #expect(a["intents"]?.status == .neverMerged)
        #expect(a["importer"]?.status == .writesOnly)
    }

    @Test func xmlWholeSecondsCountAsMerged() throws {
        let binary = try analyze("MergeState", plists: ["phtk.plist"])
        let xml = try analyze("MergeState", plists: ["xml.plist"])
        for name in ["app", "widget", "shareExtension"] {
            #expect(xml[name]?.status == binary[name]?.status)
            #expect(xml[name]?.lastMerged?.number == binary[name]?.lastMerged?.number)
            #expect(xml[name]?.pending.count == binary[name]?.pending.count)
        }
    }

    @Test func staleActorIsBehindAndHoldsBackPurges() throws {
        let later = Scenarios.appGroupTime(34) + 20 * 86400
        let a = try analyze("MergeState", plists: ["stale.plist"], declared: ["app", "widget", "intents"], now: later)
        let intents = try #require(a["intents"])
        #expect(intents.status == .behind)
        #expect(intents.advice.description.contains("has not merged for"))
        #expect(a["share"]?.status == .unknownActor)
        #expect(a["share"]?.explanation.contains("did you mean shareExtension?") == true)
        // shareExtension writes but keeps no state under that name: a writer, not an actor.
        #expect(a["shareExtension"] == nil)
        let store = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        let records = try DefaultsReader.read(
            path: Repository.fixtures + "/MergeState/stale.plist", storeUUID: store.storeUUID
        ).records
        let report = try MergeStateAnalyzer(
            store: store, declared: ["app", "widget", "intents"], batch: [], records: records, now: later
        ).report()
        let writer = try #require(report.writers.first { $0.author == "shareExtension" })
        #expect(writer.transactions == 3 && writer.firstNumber == 11 && writer.lastNumber == 34)
        #expect(report.writers.first { $0.author == "NSCloudKitMirroringDelegate.export" }?.family == .cloudKit)
    }

    @Test func tokensForeignCorruptAndValid() throws {
        let a = try analyze(
            "MergeState", plists: ["tokens.plist"],
            tokens: [("widgetFile", "foreign-token.data"), ("shareFile", "corrupt-token.data"), ("app", "token.data")],
            declared: ["lastHistoryToken", "widgetFile", "shareFile", "app"])
        #expect(a["lastHistoryToken"]?.status == .upToDate)
        #expect(a["lastHistoryToken"]?.tokenNumber == 34)
        #expect(a["widgetHistoryToken"]?.status == .foreignToken)
        #expect(a["widgetFile"]?.status == .foreignToken)
        #expect(a["shareHistoryToken"]?.status == .corruptToken)
        #expect(a["shareFile"]?.status == .corruptToken)
        #expect(a["app"]?.status == .behind)
        #expect(a["app"]?.lastMerged?.number == 31)
    }

    @Test func purgedStoreExpiresATokenAndMakesADateMissChanges() throws {
        let a = try analyze("Purged", plists: ["defaults.plist"], tokens: [("widget", "widget-token.data")])
        #expect(a["app"]?.status == .missedChanges)
        #expect(a["widget"]?.status == .expired)
        #expect(a["widget"]?.explanation.contains("134301") == true)
        #expect(a["shareExtension"]?.status == .behind)
        #expect(a.values.filter { $0.status.isBroken }.count == 2)
    }

    @Test func cutoffsUseTheActorsDates() throws {
        let store = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        let records = try DefaultsReader.read(
            path: Repository.fixtures + "/MergeState/phtk.plist", storeUUID: store.storeUUID
        ).records
        let report = try MergeStateAnalyzer(store: store, declared: [], batch: [], records: records, now: now).report()
        let effect = try #require(report.cleaner(.phtk2))
        let phtk = effect.cutoff
        #expect(phtk.cutoff == Scenarios.appGroupTime(20))
        #expect(phtk.heldBackBy == "widget")
        // Transactions before #20's time, by app, shareExtension or widget.
        let expected = try store.countTransactions(
            HistoryQuery(
                before: .date(Scenarios.appGroupTime(20)),
                authors: [.value("app"), .value("shareExtension"), .value("widget")]))
        #expect(effect.transactionsToDelete == expected)
        #expect(expected == 14)
    }
}

@Suite(.enabled(if: RealStores.available)) struct RealTokenTests {
    private func status(_ store: String) throws -> ActorReport {
        let opened = try HistoryStore.open(store)
        let record = try TokenFileReader.read(path: RealStores.photosToken, actor: "photos")
        return try #require(
            try MergeStateAnalyzer(
                store: opened, declared: ["photos"], batch: [], records: [record],
                now: Date().timeIntervalSinceReferenceDate
            ).report().actors.first { $0.name == "photos" })
    }

    @Test func photosTokenIsUpToDate() throws {
        let r = try status(RealStores.photos)
        #expect(r.status == .upToDate)
        #expect(r.tokenNumber == 516 && r.lastMerged?.number == 516)
    }

    @Test func photosTokenAgainstSwiftDataIsForeign() throws {
        #expect(try status(RealStores.swiftData).status == .foreignToken)
    }

    @Test func photosTokenExpiresWhenItsTransactionIsPurged() throws {
        let dir = try TemporaryDirectory()
        try dir.copy(from: RealStores.directory! + "/photos-10.15.7", prefix: "Photos.sqlite")
        let q = try DatabaseQueue(path: dir.file("Photos.sqlite"))
        try q.write { db in
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= 516")
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= 516")
        }
        try q.close()
        let r = try status(dir.file("Photos.sqlite"))
        #expect(r.status == .expired)
        #expect(r.explanation.contains("#516"))
    }
}
