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
                RuleMessages.dormantMirror(
                    since: since, transactionsSince: silence.transactionsSince, seconds: seconds),
                data)
        ]
    }
}
