import HistoryKit

/// The user's word before a purge is executed: in a session, before every purge (saying why
/// when the plan says it deserves it); in one-shot mode, before one the plan says deserves it
/// (it deletes every transaction, or knows no app's position), asked on the terminal, or
/// `--yes` given beforehand.
enum PurgeConfirmation {
    /// Whether to go on; throws when a purge that deserves confirmation has no terminal to ask on.
    static func obtained(_ plan: PurgePlan, store path: String, yes: Bool, in context: CommandContext) throws -> Bool {
        let reasons = yes ? [] : plan.reasonsToConfirm.map(\.text)
        let question =
            """
            Delete \(plural(plan.preview.transactionCount, "transaction")) and \
            \(plural(plan.preview.changeCount, "change")) from \(path)? [y/N] 
            """
        let session = context.session?.confirm
        guard session != nil || !reasons.isEmpty else { return true }
        if session == nil && !TerminalQuestion.available(on: context.console) {
            throw CLIError.refused(
                path: path,
                reason:
                    """
                    \(reasons.joined(separator: "; ")): give --yes to purge without being asked (there is no \
                    terminal to ask on)
                    """
            )
        }
        // Why it asks, on a line of its own before the question (a prompt is one line).
        if !reasons.isEmpty { context.printError("cdhist: careful: \(reasons.joined(separator: "; "))") }
        return session?(question) ?? TerminalQuestion.ask(question, on: context.console) ?? false
    }
}
