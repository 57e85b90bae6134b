/// `cloudkit-records-pending`: mirrored objects wait for upload or for their
/// deletion in iCloud (counted, per entity).
struct CloudKitRecordsPendingRule: CheckRule {
    let id = "cloudkit-records-pending"
    let severity = Severity.info
    let summary = "mirrored records await upload or deletion in iCloud"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let records = c.mirroring?.records else { return [] }
        let upload = records.needsUpload ?? 0
        let delete = records.needsCloudDelete ?? 0
        guard upload > 0 || delete > 0 else { return [] }
        let entities = records.byEntity.filter { ($0.needsUpload ?? 0) + ($0.needsCloudDelete ?? 0) > 0 }
            .sorted {
                ($0.needsUpload ?? 0) + ($0.needsCloudDelete ?? 0) > ($1.needsUpload ?? 0) + ($1.needsCloudDelete ?? 0)
            }
        return [
            finding(
                RuleMessages.cloudKitRecordsPending(
                    upload: upload, delete: delete, mirrored: records.mirrored, entities: entities),
                [
                    "needsUpload": .integer(Int64(upload)), "needsCloudDelete": .integer(Int64(delete)),
                    "mirroredRecords": .integer(Int64(records.mirrored)),
                ])
        ]
    }
}
