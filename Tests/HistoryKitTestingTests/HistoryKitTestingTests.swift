import Foundation
import HistoryFixtures
import HistoryKit
import HistoryKitTesting
import TestSupport
import Testing

/// HistoryKitTesting as an app's test suite uses it: health recorded as `check` words it, a
/// provocation that leaves every file as it was however its scope ends, and what a save wrote.
@Suite struct HistoryKitTestingTests {
    static let now = Date(timeIntervalSinceReferenceDate: 762_944_400)  // 2025-03-06T09:00:00Z

    /// A writable copy of a fixture folder, and the app's history in it.
    static func copy(_ fixture: String, defaults: [String] = []) throws -> (TemporaryDirectory, AppHistory) {
        let dir = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/" + fixture, prefix: "")
        return (dir, AppHistory(store: dir.file("Tasks.sqlite"), defaults: defaults.map(dir.file)))
    }

    /// The text of each issue `body` recorded, which are expected.
    static func recorded(_ body: () throws -> Void) throws -> [String] {
        final class Texts: @unchecked Sendable {
            let lock = NSLock()
            var all: [String] = []
        }
        let texts = Texts()
        try withKnownIssue {
            try body()
        } matching: { issue in
            texts.lock.withLock { texts.all.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
            return true
        }
        return texts.lock.withLock { texts.all }
    }

    @Test func healthIsRecordedAsCheckWordsIt() throws {
        let (dir, history) = try Self.copy("MergeState", defaults: ["phtk.plist"])
        let findings = try history.findings(atLeast: .warning, now: Self.now)
        // The command's use case, asked the same.
        let opened = try HistoryStore.open(history.store)
        defer { opened.close() }
        let check = try HealthCheck.run(
            opened,
            HealthCheckRequest(
                mergeState: MergeStateRequest(defaults: [dir.file("phtk.plist")], now: 762_944_400, nowIsGiven: true),
                config: CheckConfig(), only: [], skip: [], modelPath: nil, nextModelPath: nil, failOn: .warning,
                forAPage: false))
        #expect(findings.map(\.ruleID) == check.failing.map(\.ruleID))
        #expect(findings.map(\.ruleID) == ["actor-not-merging"])
        let texts = try Self.recorded { try history.expectHealthy(failingAt: .warning, now: Self.now) }
        #expect(texts == findings.map { "\(history.store): warning \($0.ruleID): \($0.message)" })
        #expect(texts.first?.contains("widget") == true)
        // At error, nothing fails.
        try history.expectHealthy(failingAt: .error, now: Self.now)
    }

    /// A scope leaves every file byte-identical when it returns, throws, or an expectation in it fails,
    /// and the store is in the failure inside it.
    @Test(arguments: ["returns", "throws", "fails"])
    func aProvocationScopePutsEveryFileBack(ending: String) throws {
        struct AppCrashed: Error {}
        let (dir, history) = try Self.copy("MergeState", defaults: ["phtk.plist"])
        let before = try DirectoryState(dir.path)
        var inside: [String] = []
        let body = {
            inside = try history.findings(atLeast: .warning, now: Self.now).map(\.ruleID)
            switch ending {
            case "throws": throw AppCrashed()
            case "fails": Issue.record("the app did not recover")
            default: break
            }
        }
        if ending == "fails" {
            let texts = try Self.recorded {
                try history.provoking(.missedChanges, actor: "widget", now: Self.now, body)
            }
            #expect(texts == ["the app did not recover"])
        } else if ending == "throws" {
            #expect(throws: AppCrashed.self) {
                try history.provoking(.missedChanges, actor: "widget", now: Self.now, body)
            }
        } else {
            try history.provoking(.missedChanges, actor: "widget", now: Self.now, body)
        }
        #expect(inside.contains("actor-missed-changes"), "\(inside)")
        #expect(try DirectoryState(dir.path) == before, "the scope left a difference")
    }

    /// Every scenario, in an async scope: the files changed inside it, as before after it.
    @Test(arguments: ProvokeScenario.allCases)
    func everyScenarioInAnAsyncScope(scenario: ProvokeScenario) async throws {
        let dir = try TemporaryDirectory()
        let history: AppHistory
        let actor: String?
        switch scenario {
        case .expiredToken, .foreignToken, .corruptToken:
            try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "")
            (history, actor) = (
                AppHistory(store: dir.file("Tasks.sqlite"), tokens: ["app=" + dir.file("token.data")]), "app"
            )
        case .missedChanges, .behind:
            try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "")
            (history, actor) = (
                AppHistory(store: dir.file("Tasks.sqlite"), defaults: [dir.file("phtk.plist")]), "widget"
            )
        case .cloudKitReset:
            try dir.copy(from: Repository.fixtures + "/CloudKit", prefix: "")
            (history, actor) = (AppHistory(store: dir.file("Tasks.sqlite")), nil)
        }
        let before = try DirectoryState(dir.path)
        let changed = try await history.provoking(scenario, actor: actor, now: Self.now) {
            await Task.yield()
            return try DirectoryState(dir.path) != before
        }
        #expect(changed)
        #expect(try DirectoryState(dir.path) == before)
    }

    /// Missed changes by a deletion that leaves no transaction: no rule can date what was deleted
    /// against the actor's position, so the plan promises none and check finds none.
    @Test func missedChangesThatLeaveNoTransactionPromiseNoRule() throws {
        // The example app's store, every actor up to date; then one save by the app.
        let dir = try TemporaryDirectory()
        try dir.copy(
            from: Repository.root.appendingPathComponent("Examples/AppTests/Tests/TasksAppTests/Stores").path,
            prefix: "")
        let history = AppHistory(store: dir.file("Tasks.sqlite"), defaults: [dir.file("defaults.plist")])
        let writer = try LiveWriter(path: history.store)
        let saved = try writer.commit(at: 800_000_000).number
        #expect(LiveWriter.authors[Int(saved % 3)] != "widget")
        try writer.close()
        let opened = try HistoryStore.open(history.store)
        let plan = try ProvocationProposal.make(
            opened,
            ProvokeRequest(
                scenario: .missedChanges, actor: "widget", by: 1,
                mergeState: MergeStateRequest(defaults: history.defaults, now: 800_000_100, nowIsGiven: true))
        ).plan
        opened.close()
        #expect(plan.purge?.preview.survivingTransactions == 0 && plan.checkRule == nil)
        try history.provoking(.missedChanges, actor: "widget") {
            let rules = try history.findings().map(\.ruleID)
            #expect(!rules.contains("actor-missed-changes"), "\(rules)")
        }
    }

    /// Another process holding the store is refused, and nothing is changed.
    @Test(.enabled(if: LockHolder.available)) func aStoreHeldElsewhereIsRefused() throws {
        let (dir, history) = try Self.copy("MergeState", defaults: ["phtk.plist"])
        let before = try DirectoryState(dir.path)
        let holder = try LockHolder(path: history.store, statement: "BEGIN IMMEDIATE")
        defer { holder.release() }
        var ran = false
        #expect(throws: ProvokeError.self) {
            try history.provoking(.behind, actor: "widget", now: Self.now) { ran = true }
        }
        #expect(!ran)
        holder.release()
        #expect(try DirectoryState(dir.path) == before)
    }

    /// What the fixtures' writer commits to a live WAL store after a mark is read back exactly:
    /// its transactions, their changes, and the values before and after each.
    @Test func aMarkReadsWhatWasWrittenSince() throws {
        let (dir, history) = try Self.copy("Later")
        defer { withExtendedLifetime(dir) {} }
        let mark = try history.mark()
        #expect(mark.transactionNumber == 38)
        let writer = try LiveWriter(path: history.store, writingRows: true)
        var committed: [Int64] = []
        for i in 0..<4 { committed.append(try writer.commit(at: 800_000_000 + Double(i)).number) }
        let written = try history.writtenSince(mark)
        try writer.close()
        #expect(written.map(\.transaction.number) == committed)
        #expect(written.map(\.transaction.author) == committed.map { LiveWriter.authors[Int($0 % 3)] })
        for transaction in written {
            let changes = transaction.changes
            #expect(changes.count == LiveWriter.changeCount(ofTransaction: transaction.transaction.number))
            // Each save inserts an object and updates it (both seen after the save, none before it),
            // then deletes earlier ones (seen before it, with their rows).
            for (i, noted) in changes.enumerated() {
                let values = try #require(noted.values, "\(noted.valuesMissing ?? "")")
                #expect(values.exact)
                switch i {
                case 0:
                    #expect(noted.change.changeType == .insert && values.before == nil)
                    #expect(noted.value(after: "done") == (changes.count > 1 ? .integer(1) : .integer(0)))
                case 1:
                    #expect(noted.change.updatedProperties == ["done"] && values.before == nil)
                    #expect(noted.value(after: "done") == .integer(1))
                default:
                    #expect(noted.change.changeType == .delete && values.after == nil)
                    #expect(noted.value(before: "done") != nil, "\(values.before ?? [])")
                }
            }
        }
        // The helpers, on what was written.
        written.expectEveryTransactionHasAnAuthor()
        written.expect(author: "app", touchedOnly: ["Task"])
        let update = try #require(written.first?.changes[1].change)
        written.expect(update: "Task/p\(update.entityPK)", changed: ["done"])
        let texts = try Self.recorded {
            written.expect(author: "widget", touchedOnly: ["Project"])
            written.expect(update: "Task/p\(update.entityPK)", changed: ["title"])
        }
        #expect(texts.count == LiveWriter.changeCount(ofTransaction: committed[1]) + 1, "\(texts)")
        #expect(
            texts.last
                == "#\(committed[0]) by '\(LiveWriter.authors[Int(committed[0] % 3)])' (viewContext) updated Task/p\(update.entityPK)'s done, not exactly title"
        )
    }
}
