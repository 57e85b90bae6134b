import Foundation
import HistoryKit
import HistoryKitTesting
import TasksApp
import Testing

/// With `EXAMPLE_BROKEN=1` the same tests run against a broken app: the widget's merge position
/// lies before history a cleaner purged, and the app saves without a transaction author. Each
/// test then fails, naming the rule or the transaction.
let broken = ProcessInfo.processInfo.environment["EXAMPLE_BROKEN"] == "1"

/// A fresh copy of the app's store and its App Group defaults (the test's resources), in a
/// folder of its own: a test changes them.
func appHistory() throws -> AppHistory {
    let stores = try #require(Bundle.module.url(forResource: "Stores", withExtension: nil))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("TasksAppTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let defaults = broken ? "broken.plist" : "defaults.plist"
    for name in ["Tasks.sqlite", defaults] {
        try FileManager.default.copyItem(
            at: stores.appendingPathComponent(name), to: folder.appendingPathComponent(name))
    }
    return AppHistory(
        store: folder.appendingPathComponent("Tasks.sqlite").path,
        defaults: [folder.appendingPathComponent(defaults).path])
}

@Suite struct HistoryTests {
    /// Every process has merged what it must, and nothing is purged past anyone.
    @Test func historyIsHealthy() throws {
        try appHistory().expectHealthy(failingAt: .warning)
    }

    /// The app saves twice while the widget is not running, and a cleaner purges past the widget
    /// the first save: while the store is in that state, the check the app runs at launch finds
    /// it. Every file is put back afterwards, and history is as healthy as before.
    @Test func theWidgetMeetsMissedChanges() throws {
        let history = try appHistory()
        let app = try TaskStore(path: history.store, author: "app")
        try app.rename(task: 2, to: "Write the thank-you notes")
        try app.rename(task: 3, to: "Book the garden")
        try app.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: history.store))
        try history.provoking(.missedChanges, actor: "widget") {
            // The app would launch here; the store it opens is in the failure.
            let missed = try history.findings(atLeast: .error).filter { $0.ruleID == "actor-missed-changes" }
            #expect(missed.contains { "\($0.message)".hasPrefix("widget: ") })
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: history.store)) == before)
        try history.expectHealthy(failingAt: .error)
    }

    /// Renaming a task writes one transaction, by the app, that updates the title and nothing else.
    @Test func renamingATaskWritesOneAttributedUpdate() throws {
        let history = try appHistory()
        let mark = try history.mark()
        let app = try TaskStore(path: history.store, author: broken ? nil : "app")
        try app.rename(task: 1, to: "Plan the winter launch")
        // Read while the app has the store open: its save is still in the -wal, with the values.
        let written = try history.writtenSince(mark)
        try app.close()
        #expect(written.count == 1)
        written.expectEveryTransactionHasAnAuthor()
        written.expect(author: "app", touchedOnly: ["Task"])
        written.expect(update: "Task/p1", changed: ["title"])
        let change = try #require(written.first?.changes.first)
        #expect(change.value(before: "title") == .text("Plan the launch"))
        #expect(change.value(after: "title") == .text("Plan the winter launch"))
    }
}
