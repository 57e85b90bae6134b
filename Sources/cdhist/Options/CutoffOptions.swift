import ArgumentParser
import Foundation
import HistoryKit

/// `--before` or `--strategy`: the purge `purge` previews, and the cut-off
/// `timeline` and `report` mark.
struct CutoffOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Purge transactions before this date, tx:N, token:FILE or token:STOREUUID:N (as deleteHistory(before:)).",
            valueName: "position"))
    var before: String?

    @Option(
        help: ArgumentHelp(
            "Use a cleaner's cut-off: \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "name"))
    var strategy: String?

    func validate() throws {
        if before != nil && strategy != nil { throw ValidationError("give --before or --strategy, not both") }
        if let strategy, CleanerStrategy(rawValue: strategy) == nil {
            throw ValidationError(
                """
                unknown strategy '\(strategy)'; known: \
                \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", "))
                """
            )
        }
    }

    var isGiven: Bool { before != nil || strategy != nil }

    /// The token file `--before token:FILE` reads.
    var tokenFiles: [String] { before.flatMap(PositionParser.tokenFile).map { [$0] } ?? [] }

    /// Where the purge cuts: `--before`'s position read by `parser`, or the strategy; nil when
    /// neither option is given. `option` names `before` in errors (timeline's marker is `--purge-before`).
    func cutoff(parser: PositionParser, option: String = "--before") throws -> PurgeCutoff? {
        if let before { return .before(try parser.bound(before, option: option), rule: "before \(before)") }
        return strategy.flatMap(CleanerStrategy.init(rawValue:)).map { .strategy($0) }
    }
}
