/// `wal-missing`: the store looks copied without its `-wal`: a `-shm` without
/// `-wal`, or `Z_PRIMARYKEY` counting newer transactions than the file holds.
struct WALMissingRule: CheckRule {
    let id = "wal-missing"
    let severity = Severity.warning
    let summary = "the store seems copied without its -wal file"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        let files = c.store.files
        guard files.walSize == nil else { return [] }
        if files.shmSize != nil {
            return [
                finding(
                    RuleMessages.shmWithoutWAL(files),
                    ["evidence": .string("shm-without-wal")])
            ]
        }
        let traces = c.statistics.purgeTraces
        if traces.highWaterMarkAboveLast, let mark = traces.transactionHighWaterMark,
            let last = c.statistics.transactionNumbers?.upperBound
        {
            return [
                finding(
                    RuleMessages.transactionsMissing(mark: mark, last: last),
                    ["evidence": .string("high-water-mark"), "missingTransactions": .integer(mark - last)])
            ]
        }
        return []
    }
}
