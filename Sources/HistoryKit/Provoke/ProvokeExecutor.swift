import Foundation

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
    /// Executes `plan` (the store it was planned on is closed first). On failure every file is
    /// put back from its copy and the copies are removed. `stops` stand for Ctrl-C where the
    /// caller owns it (a session).
    public static func execute(_ plan: ProvokePlan, busyTimeout: Double = 2, stops: StopRequests? = nil,
                               progress: (String) -> Void = { _ in }) throws -> ProvokeResult {
        let store = plan.storePath
        if StoreConnection.hasLiveConnection(shm: FileStatus.resolvedPath(store) + "-shm") { throw ProvokeError.storeInUse(path: store) }
        plan.purge?.store.close()
        progress("copying \(plural(plan.files.filter { FileStatus($0) != nil }.count, "file")) to \(ProvokeBackup.folder(forStore: store))")
        let files = try ProvokeBackup.make(store: store, files: plan.files, scenario: plan.scenario, actor: plan.actor)
        do {
            var deleted = 0
            if let purge = plan.purge, purge.preview.transactionCount > 0 {
                let options = PurgeOptions(backup: .skip, busyTimeout: busyTimeout, allowBreakingActors: true)
                deleted = try PurgeExecutor.execute(purge, options: options, stops: stops, progress: progress).deletedTransactions
            }
            if let edit = plan.edit {
                let stop = WriteInterruption(stops: stops)
                defer { stop.cancel() }
                try FileReplacement.replace(edit.path, expecting: edit.bytesRead, with: edit.bytes, stop: stop, outcome: "it is unchanged")
            }
            return ProvokeResult(files: files, transactionsDeleted: deleted)
        } catch {
            // Whatever was written is put back; the copies go with it once every file is as before.
            if (try? ProvokeBackup.undo(store: store)) == nil, files.allSatisfy({ ($0.backup == nil) == (FileStatus($0.path) == nil) && (try? FileDigest.take($0.path))??.sha256 == $0.sha256 }) {
                ProvokeBackup.discard(store: store)
            }
            throw error
        }
    }
}
