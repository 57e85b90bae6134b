/// `cloudkit-export-behind`: CloudKit's exporter has more than
/// `maxExportPendingTransactions` transactions of the app's authors to export.
struct CloudKitExportBehindRule: CheckRule {
    let id = "cloudkit-export-behind"
    let severity = Severity.warning
    let summary = "CloudKit's exporter is far behind (transactions to export above the threshold)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let report = c.mergeState, let exporter = report.exporter, exporter.status == .behind || exporter.status == .neverMerged,
              exporter.pending.count > c.config.maxExportPendingTransactions else { return [] }
        let age = exporter.lag.map { ", the oldest \(report.lagClock.waited($0))" } ?? ""
        var data: [String: PlistValue] = ["actor": .string(exporter.name), "pendingTransactions": .integer(Int64(exporter.pending.count)),
                                          "threshold": .integer(Int64(c.config.maxExportPendingTransactions))]
        if let lag = exporter.lag { data["lagDays"] = .real(lag / 86400) }
        return [finding("CloudKit has \(plural(exporter.pending.count, "transaction")) to export\(age) (threshold: \(plural(c.config.maxExportPendingTransactions, "transaction"))). The app has not run with a network and an iCloud account since, or exports fail: see the recent events of \(Control.showCloudKit).",
                        data)]
    }
}
