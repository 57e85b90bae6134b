import HistoryKit

/// The user's word before a purge is executed: in a session, before every purge; in one-shot
/// mode, before one the plan says deserves it (it deletes every transaction, or knows no
/// actor), asked on the terminal, or `--yes` given beforehand.
enum PurgeConfirmation {
    /// Whether to go on; throws when a purge that deserves confirmation has no terminal to ask on.
    static func obtained(_ plan: PurgePlan, store path: String, yes: Bool) throws -> Bool {
        let reasons = yes ? [] : plan.reasonsToConfirm.map(\.text)
        let question = (reasons.isEmpty ? "" : "Careful: \(reasons.joined(separator: "; ")).\n")
            + "Delete \(plural(plan.preview.transactionCount, "transaction")) and \(plural(plan.preview.changeCount, "change")) from \(path)? [y/N] "
        if let confirm = REPLEnvironment.current?.confirm { return confirm(question) }
        guard !reasons.isEmpty else { return true }
        guard let answer = TerminalQuestion.ask(question) else {
            throw CLIError.refused(path: path, reason: "\(reasons.joined(separator: "; ")): give --yes to purge without being asked (there is no terminal to ask on)")
        }
        return answer
    }
}
