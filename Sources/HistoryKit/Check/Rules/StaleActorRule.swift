import HistoryReading

/// `stale-actor`: the actor that holds back every cleaner's cut-off has not
/// merged for `staleDays`: history can never be purged past it.
struct StaleActorRule: CheckRule {
    let id = "stale-actor"
    let severity = Severity.warning
    let summary = "a stale actor holds back every purge"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let report = c.mergeState else { return [] }
        let holders = Set(report.cleaners.compactMap(\.cutoff.heldBackBy))
        // An actor with nothing to merge is not stale, however old its position: nothing newer was written.
        return report.actors.filter { holders.contains($0.name) && $0.pending.count > 0 }.compactMap { a in
            // Measured by the store's own time unless a time was given or the store is live: a copy is not stale for
            // its age.
            guard let age = a.positionAge else { return nil }
            let days = age / 86400
            guard days > c.config.staleDays else { return nil }
            return finding(
                RuleMessages.staleActor(a, days: days, clock: report.lagClock),
                ["actor": .string(a.name), "daysSinceMerge": .real(days)])
        }
    }
}
