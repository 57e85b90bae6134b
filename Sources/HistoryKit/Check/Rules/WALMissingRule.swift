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
                    """
                    \(files.path)-shm is present but \(files.path)-wal is not: the newest transactions were \
                    probably left behind when the store was copied. Copy the store with its -wal and -shm files.
                    """,
                    ["evidence": .string("shm-without-wal")])
            ]
        }
        let traces = c.statistics.purgeTraces
        if traces.highWaterMarkAboveLast, let mark = traces.transactionHighWaterMark,
            let last = c.statistics.transactionNumbers?.upperBound
        {
            return [
                finding(
                    """
                    Z_PRIMARYKEY has handed out transaction numbers up to \(mark) but the newest transaction is \
                    \(last) and there is no -wal: the newest \(mark - last) transactions were either purged or \
                    left in a -wal that was not copied.
                    """,
                    ["evidence": .string("high-water-mark"), "missingTransactions": .integer(mark - last)])
            ]
        }
        return []
    }
}
