import HistoryReading

/// `cloudkit-export-behind`: CloudKit's exporter has more than `maxExportPendingTransactions`
/// transactions of the app's authors to export, or the oldest has waited more than `maxLagDays`.
struct CloudKitExportBehindRule: CheckRule {
    let id = "cloudkit-export-behind"
    let severity = Severity.warning
    let summary = "CloudKit's exporter is far behind (transactions to export, or their age, above the thresholds)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let report = c.mergeState, let exporter = report.exporter,
            exporter.status == .behind || exporter.status == .neverMerged
        else { return [] }
        // Behind by count, or by time: by the store's own time unless a time was given or the store is live.
        let behind = report.behind(exporter)
        let lagDays = (behind ?? 0) / 86400
        guard exporter.pending.count > c.config.maxExportPendingTransactions || lagDays > c.config.maxLagDays else {
            return []
        }
        let age = behind.map { ", \(report.lagClock.behind($0))" } ?? ""
        var data: [String: PlistValue] = [
            "actor": .string(exporter.name), "pendingTransactions": .integer(Int64(exporter.pending.count)),
            "threshold": .integer(Int64(c.config.maxExportPendingTransactions)),
            "maxLagDays": .real(c.config.maxLagDays),
        ]
        if let behind { data["lagDays"] = .real(behind / 86400) }
        return [
            finding(
                RuleMessages.cloudKitExportBehind(exporter: exporter, age: age, config: c.config),
                data)
        ]
    }
}
