import HistoryReading

/// `migration-truncates-history`: the next model (the model of the app's next version) removes an
/// entity that history still names, so migrating to it truncates history: the
/// transactions that go, and the actors that then fail with 134301. An error when
/// an actor would break, else a warning.
struct MigrationTruncationRule: CheckRule {
    let id = "migration-truncates-history"
    let severity = Severity.error
    let summary =
        "the next model removes entities history names: migrating truncates history (when the next model is given)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let next = c.nextModel else { return [] }
        let truncation = try MigrationTruncation.find(in: c.store, to: next, actors: c.mergeState?.actors ?? [])
        guard let preview = truncation.preview, let newest = truncation.removed.map(\.newestTransaction).max() else {
            return []
        }
        let entities = truncation.removed.map {
            "\($0.name) (\(plural($0.changes, "change")), the newest in #\($0.newestTransaction))"
        }
        let broken = preview.consequences.map { "\($0.actor) (\($0.status.rawValue))" }
        let message = RuleMessages.migrationTruncation(
            entities: entities, preview: preview, newest: newest, broken: broken, actorsGiven: c.mergeState != nil)
        var data: [String: PlistValue] = [
            "entities": .array(truncation.removed.map { .string($0.name) }),
            "transactions": .integer(Int64(preview.transactionCount)),
            "changes": .integer(Int64(preview.changeCount)),
            "lastTransaction": .integer(newest),
            "actors": .array(preview.consequences.map { .string($0.actor) }),
        ]
        if let cut = preview.cut?.date { data["cutoffTimestamp"] = .real(cut) }
        return [Finding(ruleID: id, severity: broken.isEmpty ? .warning : .error, message: message, data: data)]
    }
}
