import HistoryAnalysis
import HistoryReading

/// `cloudkit-export-failing`: CloudKit's newest export failed and none succeeded after it, while
/// the app's authors wrote what it has still to export: the mirror is stuck, not merely behind.
struct CloudKitExportFailingRule: CheckRule {
    let id = "cloudkit-export-failing"
    let severity = Severity.warning
    let summary = "CloudKit's last export failed and nothing was exported after it"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let last = c.mirroring?.failedLastExport, let exporter = c.mergeState?.exporter,
            exporter.pending.count > 0
        else { return [] }
        let error = CloudKitErrorCode.text(domain: last.errorDomain, code: last.errorCode)
        let when = last.started.map { " at \(moment($0))" } ?? ""
        var data: [String: PlistValue] = ["pendingTransactions": .integer(Int64(exporter.pending.count))]
        if let domain = last.errorDomain { data["errorDomain"] = .string(domain) }
        if let code = last.errorCode { data["errorCode"] = .integer(code) }
        if let name = last.errorCode.flatMap(CloudKitErrorCode.describe)?.name,
            last.errorDomain == CloudKitErrorCode.domain
        {
            data["errorName"] = .string(name)
        }
        return [
            finding(
                RuleMessages.cloudKitExportFailing(exporter: exporter, error: error, when: when),
                data)
        ]
    }
}
