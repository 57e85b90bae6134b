import HistoryAnalysis

/// `foreign-token`: a saved token names another store (error 134501).
struct ForeignTokenRule: ActorStatusRule {
    let id = "foreign-token"
    let severity = Severity.error
    let summary = "a saved history token is for another store (Core Data error 134501)"
    let status = ActorStatus.foreignToken
}
