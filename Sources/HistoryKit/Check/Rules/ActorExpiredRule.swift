import HistoryAnalysis

/// `actor-expired`: an actor's token names a purged transaction, so Core Data
/// fails its history fetch with error 134301.
struct ActorExpiredRule: ActorStatusRule {
    let id = "actor-expired"
    let severity = Severity.error
    let summary = "an actor's history token expired (Core Data error 134301, SwiftDataError.historyTokenExpired)"
    let status = ActorStatus.expired
}
