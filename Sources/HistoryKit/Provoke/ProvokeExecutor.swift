import Foundation
import HistoryReading
import HistoryWrites

/// What an executed provocation did.
public struct ProvokeResult: Equatable, Sendable {
    /// Every file it may have changed, each with its byte-for-byte copy.
    public var files: [ProvokeBackup.File]
    public var transactionsDeleted: Int
}

/// Puts a store into a provocation's failure: refuses while another process has the store open,
/// copies every file it may change byte for byte (``ProvokeBackup``), then purges (in one SQLite
/// transaction, checked afterwards) or rewrites the merge position (atomically).
public enum ProvokeExecutor {
    /// Executes `plan` (the store it was planned on is closed first). When it fails with every
    /// file as it was, the copies are removed; when something was changed, they are kept and the
    /// error says how to put the files back. A write stops at a safe point when `stops` (the caller's)
    /// ask; without them, nothing stops it.
    public static func execute(
        _ plan: ProvokePlan, busyTimeout: Double = 2, stops: StopRequests? = nil,
        progress: (String) -> Void = { _ in }
    ) throws -> ProvokeResult {
        let store = plan.storePath
        try refuseIfOpen(store)
        plan.purge?.store.close()
        progress(
            """
            copying \(plural(plan.files.filter { FileStatus($0) != nil }.count, "file")) to \
            \(ProvokeBackup.folder(forStore: store))
            """
        )
        let files = try ProvokeBackup.make(store: store, files: plan.files, scenario: plan.scenario, actor: plan.actor)
        do {
            var deleted = 0
            if let purge = plan.purge, purge.preview.transactionCount > 0 {
                let options = PurgeOptions(backup: .skip, busyTimeout: busyTimeout, allowBreakingActors: true)
                deleted = try PurgeExecutor.execute(purge, options: options, stops: stops, progress: progress)
                    .deletedTransactions
            }
            if let edit = plan.edit {
                // The app may have been started since the copies were taken.
                try refuseIfOpen(store)
                let stop = WriteInterruption(stops: stops)
                defer { stop.cancel() }
                try FileReplacement.replace(
                    edit.path, expecting: edit.bytesRead, with: edit.bytes, stop: stop, outcome: "it is unchanged")
            }
            ProvokeBackup.recordAfter(store: store, stops: stops)
            return ProvokeResult(files: files, transactionsDeleted: deleted)
        } catch {
            // Nothing changed: the copies would only be left over. Anything changed: they are how to undo it.
            guard files.allSatisfy(\.isUnchanged) else {
                throw ProvokeError.failedAfterChange(
                    path: store, cause: (error as? any MessageError)?.message ?? "\(error)",
                    folder: ProvokeBackup.folder(forStore: store))
            }
            ProvokeBackup.discard(store: store)
            throw error
        }
    }

    private static func refuseIfOpen(_ store: String) throws {
        if StoreConnection.hasLiveConnection(shm: FileStatus.resolvedPath(store) + "-shm") {
            throw ProvokeError.storeInUse(path: store)
        }
    }
}
