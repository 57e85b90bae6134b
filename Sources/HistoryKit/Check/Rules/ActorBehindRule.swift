/// `actor-behind`: an actor has more than `maxPendingTransactions` to merge,
/// or its oldest pending transaction is older than `maxLagDays`.
struct ActorBehindRule: CheckRule {
    let id = "actor-behind"
    let severity = Severity.warning
    let summary = "an actor is far behind (pending transactions or lag above the thresholds)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let report = c.mergeState else { return [] }
        return report.actors.filter { $0.status == .behind && $0.kind == .app }.compactMap { a in
            let behind = report.behind(a) ?? 0
            let lagDays = behind / 86400
            guard a.pending.count > c.config.maxPendingTransactions || lagDays > c.config.maxLagDays else { return nil }
            return finding(
                RuleMessages.actorBehind(a, report: report, behind: behind, config: c.config),
                [
                    "actor": .string(a.name), "pendingTransactions": .integer(Int64(a.pending.count)),
                    "lagDays": .real(lagDays),
                ])
        }
    }
}
