import HistoryAnalysis

/// `actor-missed-changes`: an actor's last-merged date is older than purged
/// history, so it silently missed changes.
struct ActorMissedChangesRule: ActorStatusRule {
    let id = "actor-missed-changes"
    let severity = Severity.error
    let summary = "a purge ran past an actor's merge date: it silently missed changes"
    let status = ActorStatus.missedChanges
}
