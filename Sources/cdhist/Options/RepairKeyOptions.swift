import ArgumentParser
import HistoryKit

/// How `repair-defaults` names an actor's key: its format when the actor has none, and other
/// prefixes followed by the actor's name.
struct RepairKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("key-format"),
        help: ArgumentHelp(
            "Key format when the actor has no key: phtk, tracker, timestamp, appwise.", valueName: "format"))
    var keyFormat: String?

    @Option(
        name: .customLong("key-prefix"),
        help: ArgumentHelp("Another key prefix followed by the actor name (repeatable).", valueName: "prefix"))
    var keyPrefix: [String] = []

    /// The key format `--key-format` names; nil when not given.
    func format() throws -> MergeKeyFormat? { try keyFormat.map(Self.parseFormat) }

    static func parseFormat(_ text: String) throws -> MergeKeyFormat {
        switch text.lowercased() {
        case "phtk", "persistenthistorytrackingkit": return .persistentHistoryTrackingKit
        case "tracker", "fatbobman": return .persistentHistoryTracker
        case "timestamp", "studapp", "swiftlee": return .lastHistoryTransactionTimestamp
        case "appwise", "appwisecore": return .appwiseCore
        default: throw ValidationError("unknown key format '\(text)': use phtk, tracker, timestamp or appwise")
        }
    }
}
