import HistoryReading

/// `cloudkit-expired`: history was purged past CloudKit's export position, so
/// the mirror resets on its next export and re-uploads every record.
struct CloudKitExpiredRule: CheckRule {
    let id = "cloudkit-expired"
    let severity = Severity.error
    let summary = "CloudKit's export position was purged (the mirror resets and re-uploads everything)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let exporter = c.mergeState?.exporter, exporter.status == .expired else { return [] }
        var data: [String: PlistValue] = [
            "actor": .string(exporter.name), "source": .string(exporter.records.first?.source ?? ""),
        ]
        if let n = exporter.tokenNumber { data["tokenTransactionNumber"] = .integer(n) }
        if let n = exporter.mirroredRecordCount { data["mirroredRecords"] = .integer(Int64(n)) }
        return [finding("CloudKit mirroring: \(exporter.explanation). Fix: \(exporter.advice).", data)]
    }
}
