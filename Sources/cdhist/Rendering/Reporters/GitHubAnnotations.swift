import HistoryKit

/// GitHub Actions workflow commands: one annotation per finding (`::error`, `::warning` or
/// `::notice` by severity) on the store file, titled with the rule, then a plain summary line.
enum GitHubAnnotations {
    static func text(_ outcome: CheckOutcome) -> String {
        var lines = outcome.findings.map { f in
            let command = f.severity == .error ? "error" : f.severity == .warning ? "warning" : "notice"
            return
                """
                ::\(command) \
                file=\(property(outcome.store)),title=\(property("cdhist \(f.ruleID)"))::\(data(CheckOutcome.text(f)))
                """
        }
        let failing = outcome.findings.filter(outcome.fails).count
        lines.append(
            "cdhist check \(TerminalText.visible(outcome.store)): \(outcome.summary)"
                + (failing > 0 ? "; \(failing) at or above \(outcome.threshold.rawValue): exit status 1" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    /// A command's message: `%`, CR and LF escaped, so it cannot end the command or start another.
    static func data(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A command's property value: as a message, and `:` and `,` too.
    static func property(_ text: String) -> String {
        data(TerminalText.visible(text)).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(
            of: ",", with: "%2C")
    }
}
