import HistoryReading

/// `dormant-mirror`: the store holds CloudKit mirroring's metadata, yet for days history shows
/// no mirroring while other authors kept writing: the store has been opened without CloudKit
/// (an app that turns `cloudKitContainerOptions` off). Its changes are not in iCloud, and a
/// purge of that time deletes what the mirror still has to export.
struct DormantMirrorRule: CheckRule {
    let id = "dormant-mirror"
    let severity = Severity.warning
    let summary = "a mirrored store written for days without CloudKit mirroring"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let mirroring = c.mirroring, !mirroring.tables.isEmpty || mirroring.metadataSource != nil else {
            return []
        }
        let silence = try MirroringSilence.read(in: c.store, mirroring)
        guard let seconds = silence.seconds, seconds >= c.config.dormantMirrorDays * 86400,
            silence.transactionsSince >= c.config.dormantMirrorTransactions
        else { return [] }
        let at = silence.lastActivityTime.map { " (\(moment($0)))" } ?? ""
        let since: String
        var data: [String: PlistValue] = [
            "transactionsSince": .integer(Int64(silence.transactionsSince)), "seconds": .real(seconds),
        ]
        switch silence.lastActivity {
        case .transaction(let n)?:
            since = "since its last transaction #\(n)\(at)"
            data["lastMirroringTransaction"] = .integer(n)
        case .exportPosition(let n)?:
            since = "since the transaction its export token names, #\(n)\(at)"
            data["exportPosition"] = .integer(n)
        case .event?:
            since = "since its last event\(at)"
        case nil:
            since = "in any transaction history holds"
        }
        return [
            finding(
                """
                The store is mirrored with CloudKit (it holds the mirror's metadata), but nothing shows mirroring \
                ran \(since): \(plural(silence.transactionsSince, "transaction")) of other authors over \
                \(span(seconds)). The store may have been opened without CloudKit (cloudKitContainerOptions off), \
                or the device kept out of iCloud (signed out, offline): those changes are not in iCloud until \
                mirroring runs again and exports them, and a purge of that time (a 7-day cleaner) deletes history \
                the exporter still needs, forcing a full re-sync. Open the store with mirroring on, or remove the \
                mirror's metadata if the app stopped syncing on purpose.
                """,
                data)
        ]
    }
}
