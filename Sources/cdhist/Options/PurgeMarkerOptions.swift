import ArgumentParser
import HistoryKit

/// The purge cut-off `timeline` marks: `--purge-before` (as `purge --before`) or a cleaner's
/// `--strategy` (`--after` and `--before` limit what it draws, as in other commands).
struct PurgeMarkerOptions: ParsableArguments {
    @Option(
        name: .customLong("purge-before"),
        help: ArgumentHelp(
            "Mark where a purge before this date, tx:N, token:FILE or token:STOREUUID:N would cut.",
            valueName: "position"))
    var purgeBefore: String?

    @Option(
        help: ArgumentHelp(
            "Mark a cleaner's cut-off: \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "name"))
    var strategy: String?

    func validate() throws {
        if purgeBefore != nil && strategy != nil {
            throw ValidationError("give --purge-before or --strategy, not both")
        }
        try cutoff.validate()
    }

    /// The same cut-off as `purge` takes it.
    var cutoff: CutoffOptions {
        var cutoff = CutoffOptions()
        cutoff.before = purgeBefore
        cutoff.strategy = strategy
        return cutoff
    }
}
