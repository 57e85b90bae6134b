import HistoryKit

/// Collects warnings about values that are not what Core Data writes (a
/// column of another SQLite type, a timestamp no date expresses) and says so
/// once on stderr when the command ends, whatever the format: JSON carries
/// them in `warnings`, but tables and CSV have no place for them.
final class ValueWarnings {
    let store: String
    private var count = 0
    private var examples: [String] = []
    private static let shownExamples = 3

    init(store: String) { self.store = store }

    func add(_ warnings: [DecodingWarning]) {
        for w in warnings where w.kind == .wrongType || w.kind == .timestampOutOfRange {
            count += 1
            if examples.count < Self.shownExamples { examples.append(w.message.text) }
        }
    }

    /// Adds what `other` collected (after what this one has: keep chunks in order).
    func add(_ other: ValueWarnings) {
        count += other.count
        examples += other.examples.prefix(Self.shownExamples - min(examples.count, Self.shownExamples))
    }

    /// One line on `console`'s stderr when any were seen.
    func report(to console: Console) {
        guard count > 0 else { return }
        let more = count > examples.count ? "; and \(count - examples.count) more" : ""
        console.printError(
            """
            cdhist: warning: \(store): \(count) value\(count == 1 ? "" : "s") not as Core Data writes \
            \(count == 1 ? "it" : "them"): 
            """
                + examples.joined(separator: "; ") + more)
    }
}
