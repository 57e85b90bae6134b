import Foundation
import HistoryKit

/// What the store target runs on a store with a `-wal`: the library calls of `saves` (with
/// `--slots`), `recover`, and a read command at the first and the last save (`--at-save`), so
/// that the WAL reader, the page reader and the read-only view see every mutated log.
enum SaveChecks {
    static func run(_ store: HistoryStore, path: String) {
        guard store.files.walSize != nil else { return }
        let log: SaveLog
        do {
            log = try SaveLog.read(store)
        } catch {
            Touch.error(error)
            return
        }
        Touch.text(log.log.damage)
        Touch.sink &+= log.log.commits.count &+ (log.unfinished?.pages ?? 0) &+ log.olderGenerations.count
        StoreChecks.attempt {
            try log.forEachSave { summary in
                Touch.text(summary.why)
                // A partial save's counts are unknown (nil): its base was overwritten.
                guard let changes = summary.changes else { return }
                Touch.sink &+= changes.transactionsAdded.count &+ changes.changesAdded &+ changes.deletedObjects.count
                for counts in changes.entities + changes.otherTables { Touch.text(counts.name) }
            }
        }
        for save in Set([1, log.log.commits.count]) where save >= 1 {
            StoreChecks.attempt {
                let at = try HistoryStore.open(path, options: OpenOptions(busyTimeout: 0, atSave: save))
                defer { at.close() }
                for notice in at.notices { Touch.text(notice.description) }
                _ = try at.transactionCount()
            }
        }
        // Recovery and the slot check open the store at many saves and read objects: on a log of
        // Photos' size, seconds in this build, so they run on small logs (the fixtures' and the
        // mutated ones made from them).
        guard log.log.commits.count <= 8 else { return }
        StoreChecks.attempt {
            try SaveRecovery.run(
                store, log: log, userModel: nil, transaction: { Touch.transaction($0.transaction) },
                object: {
                    Touch.text($0.inexact)
                    Touch.sink &+= $0.state?.properties.count ?? 0
                })
        }
        StoreChecks.attempt {
            let resolution = try store.resolveModel()
            let values = try SaveValues(store, model: resolution.model)
            let check = try SlotCheck.run(values, decoder: store.makeDecoder(model: resolution))
            Touch.sink &+= check.updates &+ check.misses.count
        }
    }
}
