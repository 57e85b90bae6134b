/// `position-after-newest`: an actor's date is later than the newest transaction and names
/// none: it was set to the time of a launch, not of a merge (HalloApp writes `Date()` when a
/// store opens), so what was written between its last merge and that launch is never merged.
struct PositionAfterNewestRule: CheckRule {
    let id = "position-after-newest"
    let severity = Severity.warning
    let summary = "a merge date later than every transaction (set at launch, not after a merge)"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        // Read as it was after a save, the store is older than the merge state: a later date is expected.
        guard c.store.savePoint == nil, let newest = c.statistics.timestamps?.upperBound else { return [] }
        return (c.mergeState?.actors ?? []).filter { $0.kind == .app }.compactMap { a in
            // A whole-second date (an XML plist) may round up past the newest by less than a second.
            guard let date = a.positionDate, date > newest + 1 else { return nil }
            return finding(
                RuleMessages.positionAfterNewest(a, date: date, newest: newest),
                ["actor": .string(a.name), "positionDate": .real(date), "newestTimestamp": .real(newest)])
        }
    }
}
