/// `cloudkit-token-unreadable`: CloudKit's export token names another store
/// (the store was replaced or restored) or cannot be decoded.
struct CloudKitTokenUnreadableRule: CheckRule {
    let id = "cloudkit-token-unreadable"
    let severity = Severity.error
    let summary = "CloudKit's export token is for another store or cannot be read"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let exporter = c.mergeState?.exporter,
            exporter.status == .foreignToken || exporter.status == .corruptToken
        else { return [] }
        return [
            finding(
                "CloudKit mirroring: \(exporter.explanation). Fix: \(exporter.advice).",
                [
                    "actor": .string(exporter.name), "status": .string(exporter.status.rawValue),
                    "source": .string(exporter.records.first?.source ?? ""),
                ])
        ]
    }
}
