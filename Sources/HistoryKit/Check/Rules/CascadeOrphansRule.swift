import HistoryAnalysis
import HistoryReading

/// `cascade-orphans`: rows whose parent is gone although the parent's relationship deletes
/// them in cascade: they name a parent that no longer exists (dangling) or none (detached).
/// Nothing deletes them later; a store can grow by gigabytes of them.
struct CascadeOrphansRule: CheckRule {
    let id = "cascade-orphans"
    let severity = Severity.warning
    let summary = "rows whose parent is gone although its delete rule is Cascade"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let model = c.model.model else { return [] }
        return try CascadeOrphans.find(in: c.store, model: model).map { o in
            let data: [String: PlistValue] = [
                "childEntity": .string(o.childEntity), "table": .string(o.table),
                "childRows": .integer(Int64(o.childRows)), "rows": .integer(Int64(o.rows)),
                "dangling": .integer(Int64(o.dangling)), "detached": .integer(Int64(o.detached)),
                "detachedSample": .array(o.detachedSample.map { .string($0.description) }),
                "owners": .array(
                    o.owners.map { owner in
                        var d: [String: PlistValue] = [
                            "parentEntity": .string(owner.parentEntity), "relationship": .string(owner.relationship),
                            "inverse": .string(owner.inverse), "dangling": .integer(Int64(owner.dangling)),
                            "danglingSample": .array(owner.danglingSample.map { .string($0.description) }),
                        ]
                        if let span = owner.danglingParentDeletes {
                            d["parentDeletes"] = .integer(Int64(span.deletes))
                            d["firstParentDeleteTransaction"] = .integer(span.firstTransaction)
                            d["lastParentDeleteTransaction"] = .integer(span.lastTransaction)
                        }
                        return .dictionary(d)
                    }),
            ]
            return finding(
                RuleMessages.cascadeOrphans(o),
                data)
        }
    }
}
