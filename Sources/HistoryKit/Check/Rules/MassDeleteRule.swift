import HistoryReading

/// `mass-delete`: one transaction, or one author within a short window, deleted most of an
/// entity's objects. Sometimes the user asked for it; often an app took an empty or unreadable
/// store for "everything was deleted", and with CloudKit deleted it in iCloud as well.
struct MassDeleteRule: CheckRule {
    let id = "mass-delete"
    let severity = Severity.warning
    let summary = "one author deleted most of an entity's objects at once"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        try c.store.deleteBursts(c.config.massDelete).map { b in
            finding(RuleMessages.massDelete(b), Self.data(b))
        }
    }

    static func data(_ b: DeleteBurst) -> [String: PlistValue] {
        var data: [String: PlistValue] = [
            "entity": .string(b.entity), "deleted": .integer(Int64(b.deleted)),
            "objectsBefore": .integer(Int64(b.objectsBefore)),
            "transactions": .integer(Int64(b.transactions)), "firstTransaction": .integer(b.firstTransaction),
            "lastTransaction": .integer(b.lastTransaction),
        ]
        if let a = b.author { data["author"] = .string(a) }
        if let v = b.bundleID { data["bundleID"] = .string(v) }
        if let v = b.processID { data["processID"] = .string(v) }
        return data
    }
}
