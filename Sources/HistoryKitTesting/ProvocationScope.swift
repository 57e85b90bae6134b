import Foundation
import HistoryKit

extension AppHistory {
    /// Runs `body` with the store put into `scenario` (as `cdhist provoke --execute` puts it, for
    /// `actor`, `by` transactions for ``ProvokeScenario/behind``), then puts every file back byte
    /// for byte (as `cdhist provoke --undo --force`): when `body` returns, when it throws, and
    /// when an expectation in it fails. What the app wrote inside the scope is gone after it.
    ///
    /// The app's container must be closed when the scope starts and when it ends, and opened
    /// inside `body`. Another process holding the store open is refused, as `cdhist provoke`
    /// refuses it; but file locks cannot tell the test's own process from the app, so a
    /// container this process left open is not seen, and its connection would then read files
    /// changed under it.
    ///
    /// Throws what the provocation throws (the actor has no position to move, the store is
    /// open elsewhere), else what `body` throws, once the files are back; when they cannot be
    /// put back, that error, naming the backups' folder.
    @discardableResult
    public func provoking<Result>(
        _ scenario: ProvokeScenario, actor: String? = nil, by: Int = 1, now: Date? = nil,
        _ body: () throws -> Result
    ) throws -> Result {
        try provoke(scenario, actor: actor, by: by, now: now)
        let outcome = Swift.Result { try body() }
        try putBack()
        return try outcome.get()
    }

    /// `provoking(_:actor:by:now:_:)` for an `async` body.
    @discardableResult
    public func provoking<Result>(
        _ scenario: ProvokeScenario, actor: String? = nil, by: Int = 1, now: Date? = nil,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try provoke(scenario, actor: actor, by: by, now: now)
        let outcome: Swift.Result<Result, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        try putBack()
        return try outcome.get()
    }

    private func provoke(_ scenario: ProvokeScenario, actor: String?, by: Int, now: Date?) throws {
        let opened = try HistoryStore.open(store)
        defer { opened.close() }
        let request = ProvokeRequest(scenario: scenario, actor: actor, by: by, mergeState: mergeState(now: now))
        _ = try ProvokeExecutor.execute(try ProvocationProposal.make(opened, request).plan)
    }

    private func putBack() throws {
        _ = try ProvokeBackup.undo(store: store, force: true)
    }
}
