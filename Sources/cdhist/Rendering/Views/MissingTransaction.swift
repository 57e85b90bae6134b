import HistoryKit

/// Why `show` finds no transaction N, and where it can still be read: the transactions the store
/// has; read at a save, the later save that adds it; else, when a save still in the `-wal`
/// removed it (a purge), which save did and the command that shows it.
struct MissingTransaction {
    let store: HistoryStore
    /// The store as the user named it on the command line (`--booted ID` or its path).
    let words: [String]

    func why(_ number: Int64) throws -> String {
        let range = try store.statistics().transactionNumbers
        let at = store.savePoint.map { " at save \($0.save) of \($0.of)" } ?? ""
        let has =
            range.map { "the store has #\($0.lowerBound)…#\($0.upperBound)\(at)" }
            ?? "the store has no transactions\(at)"
        let what = "no transaction \(number) (\(has))"
        guard store.files.walSize != nil, let log = try? SaveLog.read(store) else { return what }
        // Read at a save, a transaction after its newest may be added by a later one.
        if let point = store.savePoint, range.map({ number > $0.upperBound }) ?? true {
            guard let adds = try? SaveRecovery.addition(ofTransaction: number, log: log, after: point.save) else {
                return what
            }
            return what
                + """
                ; save \(adds) adds it: \
                \(ShellWord.line(["cdhist", "show"] + words + ["\(number)", "--at-save", "\(adds)"])) shows it
                """
        }
        // Beyond the newest, no save removed it.
        guard range.map({ number < $0.upperBound }) ?? true,
            let removal = try? SaveRecovery.removal(
                ofTransaction: number, in: store, log: log, through: store.savePoint?.save)
        else { return what }
        let recover = ShellWord.line(["cdhist", "recover"] + words)
        guard let held = removal.heldAfter, held > 0 else {
            return what + "; save \(removal.removedBy) of its -wal removed it: \(recover) shows what the saves removed"
        }
        let show = ShellWord.line(["cdhist", "show"] + words + ["\(number)", "--at-save", "\(held)"])
        return what + "; save \(removal.removedBy) of its -wal removed it, and the store as it was after save \(held) "
            + "still has it: \(show) shows it (\(recover) lists all that the saves removed)"
    }
}
