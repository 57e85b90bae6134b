import ArgumentParser
import HistoryKit

/// What a `check` run found, for a reporter a CI system reads: the rules it ran, its findings
/// (worst first), the store it checked and the severity that fails it.
struct CheckOutcome {
    /// The store as given.
    var store: String
    var rules: [any CheckRule]
    var findings: [Finding]
    var threshold: Severity
    var toolVersion: String

    /// Whether `finding` fails the run (exit status 1).
    func fails(_ finding: Finding) -> Bool { finding.severity >= threshold }

    /// A finding's message on one line, every control character shown as an escape (it may
    /// name authors or paths from the store).
    static func text(_ finding: Finding) -> String { TerminalText.visible(finding.message.text) }

    /// "3 errors, 1 warning" or "no findings".
    var summary: String {
        let counts = Severity.allCases.reversed().map { s in (s, findings.filter { $0.severity == s }.count) }.filter {
            $0.1 > 0
        }
        return counts.isEmpty
            ? "no findings" : counts.map { CheckPresenter.counted($0.1, $0.0) }.joined(separator: ", ")
    }
}

/// The formats `check --reporter` writes for CI systems.
enum CheckReporter: String, CaseIterable, ExpressibleByArgument {
    case github, junit, sarif

    /// `outcome` in this format.
    func text(_ outcome: CheckOutcome) -> String {
        switch self {
        case .github: return GitHubAnnotations.text(outcome)
        case .junit: return JUnitReport.text(outcome)
        case .sarif: return SARIFLog.text(outcome)
        }
    }
}
