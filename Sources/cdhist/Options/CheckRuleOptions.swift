import ArgumentParser
import HistoryKit

/// Which health rules `check` runs, with what thresholds, and from which severity it fails.
struct CheckRuleOptions: ParsableArguments {
    @Option(
        name: .customLong("next-model"),
        help: ArgumentHelp(
            "The model the app's next version ships: report the history its migration would truncate.",
            valueName: "path"))
    var nextModel: String?

    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 for findings of this severity or worse: error, warning or info.", valueName: "severity"))
    var failOn: String?

    @Option(help: ArgumentHelp("Run only this rule (repeatable).", valueName: "id"))
    var rule: [String] = []

    @Option(help: ArgumentHelp("Do not run this rule (repeatable).", valueName: "id"))
    var skip: [String] = []

    @Option(help: ArgumentHelp("Thresholds and settings from a JSON file (see the manual).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("The app's cleaner, for the CloudKit rule.", valueName: "name"))
    var strategy: String?

    @Option(
        name: .customLong("max-export-pending"),
        help: ArgumentHelp(
            "Transactions CloudKit may have to export before cloudkit-export-behind warns (default 100).",
            valueName: "n"))
    var maxExportPending: Int?

    func validate() throws {
        let known = Set(Checker.rules.map(\.id))
        for id in rule + skip where !known.contains(id) {
            throw ValidationError("unknown rule '\(id)'; rules: \(known.sorted().joined(separator: ", "))")
        }
        if let failOn, Severity(rawValue: failOn) == nil {
            throw ValidationError("--fail-on takes error, warning or info")
        }
        if let strategy, CleanerStrategy(rawValue: strategy) == nil {
            throw ValidationError("unknown strategy '\(strategy)'")
        }
        if let maxExportPending, maxExportPending < 0 {
            throw ValidationError("--max-export-pending takes a count of 0 or more")
        }
    }

    /// The settings of `--config`'s file (or the defaults) with the options' own on top.
    func settings() throws -> CheckConfig {
        var settings = try config.map { try CheckConfig.load(path: $0) } ?? CheckConfig()
        if let strategy { settings.strategy = CleanerStrategy(rawValue: strategy) }
        if let maxExportPending { settings.maxExportPendingTransactions = maxExportPending }
        return settings
    }
}
