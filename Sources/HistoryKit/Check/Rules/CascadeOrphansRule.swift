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
            var kinds: [String] = []
            for owner in o.owners where owner.dangling > 0 {
                var text =
                    """
                    \(owner.dangling) point (\(owner.inverse)) at \(owner.parentEntity) objects that no longer \
                    exist (\(Self.list(owner.danglingSample, of: owner.dangling)))
                    """
                if let span = owner.danglingParentDeletes {
                    text += "; history deleted \(plural(span.deletes, "of those parent")) \(Self.range(span))"
                }
                kinds.append(text)
            }
            let relationships = o.owners.map { "\($0.parentEntity).\($0.relationship)" }
            if o.detached > 0 {
                var text = "\(o.detached) have no parent at all (\(Self.list(o.detachedSample, of: o.detached)))"
                if let span = o.parentDeletes {
                    text +=
                        """
                        ; history recorded \(plural(span.deletes, "delete")) of \
                        \(Set(o.owners.map(\.parentEntity)).sorted().joined(separator: " or ")) objects \
                        \(Self.range(span))
                        """
                }
                kinds.append(text)
            }
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
                """
                \(o.childEntity): \(o.rows) of its \(o.childRows) rows are left without their parent, although \
                \(relationships.joined(separator: ", ")) \(relationships.count == 1 ? "deletes" : "delete") them \
                in cascade: \(kinds.joined(separator: "; ")). Core Data never reaches them through a parent again \
                and nothing deletes them: \(o.rows) rows of \(o.table) kept for nothing. Delete them, and look \
                for the delete that skipped the cascade (a batch delete, SQL, a relationship made optional).
                """,
                data)
        }
    }

    /// The first object IDs, and how many more.
    private static func list(_ sample: [ObjectReference], of total: Int) -> String {
        sample.map(\.description).joined(separator: ", ") + (total > sample.count ? " …" : "")
    }

    /// "in #12 at 2025-03-03 09:00:00Z", or "from #12 (…) to #40 (…)".
    private static func range(_ span: DeleteSpan) -> String {
        func at(_ number: Int64, _ time: Double?) -> String { "#\(number)" + (time.map { " (\(moment($0)))" } ?? "") }
        return span.firstTransaction == span.lastTransaction
            ? "in " + at(span.firstTransaction, span.first)
            : "from " + at(span.firstTransaction, span.first) + " to " + at(span.lastTransaction, span.last)
    }
}
