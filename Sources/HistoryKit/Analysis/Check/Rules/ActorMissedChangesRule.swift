/// `actor-missed-changes`: an actor's last-merged date is older than purged
/// history, so it silently missed changes.
struct ActorMissedChangesRule: CheckRule {
    let id = "actor-missed-changes"
    let severity = Severity.error
    let summary = "a purge ran past an actor's merge date: it silently missed changes"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        (c.mergeState?.actors ?? []).filter { $0.status == .missedChanges }.map { a in
            finding("\(a.name): \(a.explanation). Fix: \(a.advice).", ["actor": .string(a.name)])
        }
    }
}
