import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing
@testable import HistoryKit

/// Which actors a deletion breaks is decided once (``Breakage``): the cleaners' rows of the
/// merge-state report and the purge preview of the same cut-off agree, a date is exact from a
/// binary plist and a range from an XML one, and the executor refuses what breaks an actor.
@Suite struct BreakageTests {
    /// A copy of the MergeState fixture (34 transactions, one a minute or more apart) and a
    /// defaults plist holding `widget`'s date under PersistentHistoryTrackingKit's key.
    private func store(widgetAt date: Double, format: PropertyList.Format, in dir: TemporaryDirectory) throws -> (HistoryStore, String) {
        try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "Tasks.sqlite")
        let plist: PlistValue = .dictionary(["PersistentHistoryTrackingKit.lastToken.widget": .date(date)])
        let bytes = format == .xml ? try PropertyList.encodeXML(plist) : PropertyList.encodeBinary(plist)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("defaults.plist")))
        return (try HistoryStore.open(dir.file("Tasks.sqlite")), dir.file("defaults.plist"))
    }

    private func analysis(_ store: HistoryStore, _ plist: String) throws -> MergeStateReport {
        try #require(try store.mergeState(MergeStateRequest(defaults: [plist], now: Scenarios.appGroupTime(34) + 86400), always: true).report)
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
        let preview = try store.previewPurge(HistoryQuery(before: .transaction(21)), actors: report.actors)
        #expect(preview.consequences.map(\.actor) == ["widget"])
        #expect(preview.consequences.first?.status == .missedChanges)
        #expect(preview.consequences.first?.message.hasPrefix("the purge deletes 1 transaction it has not merged yet") == true,
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
                try db.execute(sql: """
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
                    SELECT ?, Z_ENT, 1, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP + ? FROM ATRANSACTION WHERE Z_PK = 20
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
        let halfSecond = try reopened.previewPurge(HistoryQuery(before: .date(Scenarios.appGroupTime(20) + 0.5)), actors: report.actors)
        #expect(halfSecond.consequences.map(\.status) == [.missedChanges])
        #expect(halfSecond.consequences.first?.message.hasPrefix("the purge deletes 0–1 transactions it may not have merged yet") == true,
                "\(halfSecond.consequences)")
        // Through 11:30:01.000 (#36 survives): #35 may be unmerged; through 11:30:01.001 #36 surely is.
        let second = try reopened.previewPurge(HistoryQuery(before: .date(Scenarios.appGroupTime(20) + 1.001)), actors: report.actors)
        #expect(second.consequences.first?.message.hasPrefix("the purge deletes 1–2 transactions") == true, "\(second.consequences)")
        // Before its date nothing it has not merged goes.
        let before = try reopened.previewPurge(HistoryQuery(before: .date(Scenarios.appGroupTime(20) + 0.0001)), actors: report.actors)
        #expect(before.consequences.isEmpty)
    }

    /// Every strategy's row in the report says what the purge preview of its selection says.
    @Test(arguments: ["phtk.plist", "xml.plist", "tracker.plist", "studapp.plist", "swiftlee.plist", "appwise.plist", "stale.plist", "tokens.plist"])
    func cleanerRowsAreThePurgePreviews(plist: String) throws {
        let store = try HistoryStore.open(Repository.fixtures + "/MergeState/Tasks.sqlite")
        for now in [Scenarios.appGroupTime(34) + 3600, Scenarios.appGroupTime(34) + 30 * 86400] {
            let request = MergeStateRequest(defaults: [Repository.fixtures + "/MergeState/" + plist], declared: ["app"], now: now)
            let report = try #require(try store.mergeState(request, always: true).report)
            for effect in report.cleaners {
                let selection = try PurgeSelection.strategy(effect.strategy, report: report, narrowing: HistoryQuery())
                let preview = try store.previewPurge(selection.query, actors: report.actors)
                #expect(preview.consequences == effect.breaks, "\(plist) \(effect.strategy.rawValue)")
                #expect(effect.cutoff.cutoff == nil || preview.transactionCount == effect.transactionsToDelete, "\(plist) \(effect.strategy.rawValue)")
            }
        }
    }

    /// The executor refuses a plan that breaks an actor unless the request allows it, and then
    /// nothing is changed.
    @Test func theExecutorRefusesAPlanThatBreaksAnActor() throws {
        let dir = try TemporaryDirectory()
        let (store, plist) = try store(widgetAt: Scenarios.appGroupTime(20) - 0.5, format: .binary, in: dir)
        let report = try analysis(store, plist)
        let plan = try store.planPurge(HistoryQuery(before: .transaction(21)), actors: report.actors)
        let before = try DirectoryState(dir.path)
        #expect(throws: RepairError.wouldBreakActors(path: dir.file("Tasks.sqlite"), actors: ["widget (missed-changes)"])) {
            try PurgeExecutor.execute(plan, options: PurgeOptions(backup: .skip))
        }
        #expect(try DirectoryState(dir.path) == before)
        let result = try PurgeExecutor.execute(plan, options: PurgeOptions(backup: .skip, allowBreakingActors: true))
        #expect(result.deletedTransactions == 20)
    }
}
