import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// Which actors a deletion breaks is decided once (``Breakage``): the cleaners' rows of the
/// merge-state report and the purge preview of the same cut-off agree, a date is exact from a
/// binary plist and a range from an XML one, and the executor refuses what breaks an actor.
@Suite struct BreakageTests {
    /// A copy of the MergeState fixture (34 transactions, one a minute or more apart) and a
    /// defaults plist holding `widget`'s date under PersistentHistoryTrackingKit's key.
    private func store(widgetAt date: Double, format: PropertyList.Format, in dir: TemporaryDirectory) throws -> (
        HistoryStore, String
    ) {
        try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "Tasks.sqlite")
        let plist: PlistValue = .dictionary(["PersistentHistoryTrackingKit.lastToken.widget": .date(date)])
        let bytes = format == .xml ? try PropertyList.encodeXML(plist) : PropertyList.encodeBinary(plist)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("defaults.plist")))
        return (try HistoryStore.open(dir.file("Tasks.sqlite")), dir.file("defaults.plist"))
    }

    private func analysis(_ store: HistoryStore, _ plist: String) throws -> MergeStateReport {
        try #require(
            try MergeStateAnalysis.gather(
                in: store, MergeStateRequest(defaults: [plist], now: Scenarios.appGroupTime(34) + 86400), always: true
            ).report)
    }

    /// #20 (app) is at 11:30:00.000; the widget's date half a second before it, from a binary
    /// plist, is exact: #20 is unmerged, and a purge through it makes the widget miss it.
    @Test func aBinaryPlistsDateIsExact() throws {
        let dir = try TemporaryDirectory()
        let (store, plist) = try store(widgetAt: Scenarios.appGroupTime(20) - 0.5, format: .binary, in: dir)
        let report = try analysis(store, plist)
        let widget = try #require(report.actors.first { $0.name == "widget" })
        #expect(widget.lastMerged?.number == 19)
        #expect(widget.pending.oldestNumber == 20 && widget.pending.countAtMost == nil)
        let preview = try PurgePreview.make(
            HistoryQuery(before: .transaction(21)), in: store, actors: report.actors, readers: [])
        #expect(preview.consequences.map(\.actor) == ["widget"])
        #expect(preview.consequences.first?.status == .missedChanges)
        #expect(
            preview.consequences.first?.message.hasPrefix("the purge deletes 1 transaction it has not merged yet")
                == true,
            "\(preview.consequences)")
    }

    /// A whole-second date (an XML plist) at 11:30:00: the app's own is up to a second later.
    /// A transaction the app wrote at 11:30:00.400 may or may not be merged: counted as a range,
    /// never as merged; one at 11:30:01.000 or later surely is not.
    @Test func anXMLPlistsDateIsARange() throws {
        let dir = try TemporaryDirectory()
        let (store, plist) = try store(widgetAt: Scenarios.appGroupTime(20), format: .xml, in: dir)
        store.close()
        let queue = try DatabaseQueue(path: dir.file("Tasks.sqlite"))
        try queue.write { db in
            for (pk, offset) in [(35, 0.4), (36, 1.0)] {
                try db.execute(
                    sql: """
                        INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, \
                        ZPROCESSIDTS, ZTIMESTAMP)
                        SELECT ?, Z_ENT, 1, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP + ? FROM \
                        ATRANSACTION WHERE Z_PK = 20
                        """, arguments: [pk, offset])
            }
        }
        try queue.close()
        let reopened = try HistoryStore.open(dir.file("Tasks.sqlite"))
        let report = try analysis(reopened, plist)
        let widget = try #require(report.actors.first { $0.name == "widget" })
        #expect(widget.positionKeepsWholeSeconds)
        #expect(widget.lastMerged?.number == 20)
        // After 11:30:01: #22, #24, #25, #26, #27, #28, #29, #30, #32, #33, #34 and #36 (not the widget's own #21, #23, #31).
        #expect(widget.pending.count == 12 && widget.pending.countAtMost == 13, "\(widget.pending)")
        #expect(widget.explanation.hasPrefix("has 12–13 transactions by others to merge"))
        // Through 11:30:00.500: #35 may be unmerged.
        let halfSecond = try PurgePreview.make(
            HistoryQuery(before: .date(Scenarios.appGroupTime(20) + 0.5)), in: reopened, actors: report.actors,
            readers: [])
        #expect(halfSecond.consequences.map(\.status) == [.missedChanges])
        #expect(
            halfSecond.consequences.first?.message.hasPrefix(
                "the purge deletes 0–1 transactions it may not have merged yet") == true,
            "\(halfSecond.consequences)")
        // Through 11:30:01.000 (#36 survives): #35 may be unmerged; through 11:30:01.001 #36 surely is.
        let second = try PurgePreview.make(
            HistoryQuery(before: .date(Scenarios.appGroupTime(20) + 1.001)), in: reopened, actors: report.actors,
            readers: [])
        #expect(
            second.consequences.first?.message.hasPrefix("the purge deletes 1–2 transactions") == true,
            "\(second.consequences)")
        // Before its date nothing it has not merged goes.
        let before = try PurgePreview.make(
            HistoryQuery(before: .date(Scenarios.appGroupTime(20) + 0.0001)), in: reopened, actors: report.actors,
            readers: [])
        #expect(before.consequences.isEmpty)
    }

    /// Every strategy's row in the report says what the purge preview of its selection says.
    @Test(arguments: [
        "phtk.plist", "xml.plist", "tracker.plist", "studapp.plist", "swiftlee.plist", "appwise.plist", "stale.plist",
        "tokens.plist",
    ])
    func cleanerRowsAreThePurgePreviews(plist: String) throws {
        let store = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        for now in [Scenarios.appGroupTime(34) + 3600, Scenarios.appGroupTime(34) + 30 * 86400] {
            let request = MergeStateRequest(
                defaults: [Repository.fixtures + "/MergeState/" + plist], declared: ["app"], now: now)
            let report = try #require(try MergeStateAnalysis.gather(in: store, request, always: true).report)
            for effect in report.cleaners {
                let selection = try PurgeSelection.strategy(effect.strategy, report: report, narrowing: HistoryQuery())
                let preview = try PurgePreview.make(selection.query, in: store, actors: report.actors, readers: [])
                #expect(preview.consequences == effect.breaks, "\(plist) \(effect.strategy.rawValue)")
                #expect(
                    !effect.cutoff.purges || preview.transactionCount == effect.transactionsToDelete,
                    "\(plist) \(effect.strategy.rawValue)")
            }
        }
    }

    /// SwiftSync's cleaner deletes what its inbound author wrote, at every date. On a store with
    /// three such transactions (#6, #19, #37 of 37): its row counts them; the preview of its
    /// selection deletes those three and no other; whom that breaks is decided by the same rule
    /// as a cut-off's: `widget`, whose token names #19, expires; `app`, merged through #27,
    /// misses #37; `shareExtension`, merged through #37, loses nothing it has not merged.
    @Test func swiftSyncDeletesItsInboundAuthorsTransactionsAtEveryDate() throws {
        let dir = try TemporaryDirectory()
        try StoreWriter.write(SwiftSyncFixtures.store(), to: dir.file("Tasks.sqlite"))
        let store = try HistoryStore.open(dir.file("Tasks.sqlite"))
        let times = SwiftSyncFixtures.history().map(\.timestamp)
        let records = [
            MergeRecord(actor: "app", position: .date(times[26], wholeSeconds: false), source: "test", keyFormat: nil),
            MergeRecord(
                actor: "widget",
                position: .token(try TokenSpec.token(fileOrLiteral: SwiftSyncFixtures.storeUUID + ":19")),
                source: "test", keyFormat: nil),
            MergeRecord(
                actor: "shareExtension", position: .date(times[36], wholeSeconds: false), source: "test", keyFormat: nil
            ),
        ]
        let report = try MergeStateAnalyzer(
            store: store, declared: [], batch: [], records: records, now: times[36] + 86400
        ).report()
        let effect = try #require(report.cleaner(.swiftsync))
        #expect(
            effect.cutoff.cutoff == nil && effect.cutoff.allDates
                && effect.cutoff.authorFilter == [SwiftSyncFixtures.inboundAuthor])
        #expect(effect.transactionsToDelete == 3 && effect.transactionsToDeleteAtMost == nil)
        #expect(
            effect.breaks.map(\.actor) == ["app", "widget"]
                && effect.breaks.map(\.status) == [.missedChanges, .expired], "\(effect.breaks)")
        #expect(
            effect.breaks.first?.message.hasPrefix("the purge deletes 1 transaction it has not merged yet") == true,
            "\(effect.breaks)")

        let selection = try PurgeSelection.strategy(.swiftsync, report: report, narrowing: HistoryQuery())
        #expect(selection.query.before == nil && selection.query.authors == [.value(SwiftSyncFixtures.inboundAuthor)])
        let preview = try PurgePreview.make(selection.query, in: store, actors: report.actors, readers: [])
        #expect(preview.transactionCount == 3 && preview.survivingTransactions == 34)
        #expect(preview.ranges == SwiftSyncFixtures.inboundNumbers.map { $0...$0 })
        #expect(
            preview.byAuthor == [
                PurgePreview.AuthorCount(author: SwiftSyncFixtures.inboundAuthor, transactions: 3, changes: nil)
            ])
        #expect(preview.changeCount == 4 && preview.cut == nil)
        #expect(preview.consequences == effect.breaks)
        // Authors named with it narrow its own; they never replace it.
        let app = try PurgeSelection.strategy(
            .swiftsync, report: report, narrowing: HistoryQuery(authors: [.value("app")]))
        #expect(try PurgePreview.make(app.query, in: store, actors: [], readers: []).transactionCount == 0)
        let own = try PurgeSelection.strategy(
            .swiftsync, report: report,
            narrowing: HistoryQuery(authors: [.value("app"), .value(SwiftSyncFixtures.inboundAuthor)]))
        #expect(try PurgePreview.make(own.query, in: store, actors: [], readers: []).transactionCount == 3)
        // After #19 only #37 goes.
        let after = try PurgeSelection.strategy(
            .swiftsync, report: report, narrowing: HistoryQuery(after: .transaction(19)))
        #expect(try PurgePreview.make(after.query, in: store, actors: [], readers: []).ranges == [37...37])

        // A store its author never wrote to: nothing to delete, nobody broken.
        let plain = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        let none = try MergeStateAnalyzer(store: plain, declared: ["app"], batch: [], records: [], now: times[36])
            .report()
        #expect(none.cleaner(.swiftsync)?.transactionsToDelete == 0 && none.cleaner(.swiftsync)?.breaks == [])
    }

    /// The executor refuses a plan that breaks an actor unless the request allows it, and then
    /// nothing is changed.
    @Test func theExecutorRefusesAPlanThatBreaksAnActor() throws {
        let dir = try TemporaryDirectory()
        let (store, plist) = try store(widgetAt: Scenarios.appGroupTime(20) - 0.5, format: .binary, in: dir)
        let mergeState = try MergeStateAnalysis.gather(
            in: store, MergeStateRequest(defaults: [plist], now: Scenarios.appGroupTime(34) + 86400), always: true)
        let plan = try PurgePlan.make(HistoryQuery(before: .transaction(21)), in: store, mergeState: mergeState)
        let before = try DirectoryState(dir.path)
        #expect(
            throws: RepairError.wouldBreakActors(path: dir.file("Tasks.sqlite"), actors: ["widget (missed-changes)"])
        ) {
            try PurgeExecutor.execute(plan, options: PurgeOptions(backup: .skip))
        }
        #expect(try DirectoryState(dir.path) == before)
        let result = try PurgeExecutor.execute(plan, options: PurgeOptions(backup: .skip, allowBreakingActors: true))
        #expect(result.deletedTransactions == 20)
    }
}
