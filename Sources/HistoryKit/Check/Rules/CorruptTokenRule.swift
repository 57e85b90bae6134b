import HistoryAnalysis

/// `corrupt-token`: a saved position cannot be read.
struct CorruptTokenRule: ActorStatusRule {
    let id = "corrupt-token"
    let severity = Severity.error
    let summary = "a saved history token cannot be unarchived"
    let status = ActorStatus.corruptToken
}
