/// `missing-attribution`: transactions without an author or a context name
/// cannot be told apart by merging code or by this tool.
struct MissingAttributionRule: CheckRule {
    let id = "missing-attribution"
    let severity = Severity.info
    let summary = "transactions without author or context name"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        // One pass over the transactions for both fields (a BLOB name counts as none, as it reads).
        let summaries = try c.attribution()
        let noAuthor = summaries[.author]?.first { $0.value == nil }?.transactionCount ?? 0
        let noContext = summaries[.contextName]?.first { $0.value == nil }?.transactionCount ?? 0
        guard noAuthor > 0 || noContext > 0 else { return [] }
        let total = c.statistics.transactionCount
        return [
            finding(
                RuleMessages.missingAttribution(noAuthor: noAuthor, noContext: noContext, total: total),
                [
                    "withoutAuthor": .integer(Int64(noAuthor)), "withoutContextName": .integer(Int64(noContext)),
                    "transactions": .integer(Int64(total)),
                ])
        ]
    }
}
