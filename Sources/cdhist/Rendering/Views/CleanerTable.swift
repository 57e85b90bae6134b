import Foundation
import HistoryKit

/// The cleaners' cut-offs as a table. Strategies with the same cut-off and the same effect
/// (what they delete, whom they break, who holds them back) share a row, the strategies last
/// where they wrap; with `--all`, each strategy has its own row with its rule under it. What
/// rows have in common (who holds a cut-off back, a delete narrowed to some authors, keys
/// reset after the purge) is a mark in the row and said once, under the table. A cleaner
/// without a cut-off date deletes at every date: its row says so, and its mark whose history.
struct CleanerTable {
    let time: TimeFormatter
    /// Each strategy on its own row, with its rule.
    var all = false

    func sections(_ report: MergeStateReport) -> [Document.Section] {
        let entries = report.cleaners.map { Entry($0, time: time) }
        var groups: [[Entry]] = []
        for entry in entries {
            if !all, let g = groups.firstIndex(where: { $0[0].sharesRow(with: entry) }) {
                groups[g].append(entry)
            } else {
                groups.append([entry])
            }
        }
        var notes = Notes()
        let rows = groups.map { group -> [Cell] in
            let e = group[0]
            let names = group.map { $0.strategy + ($0.resets ? notes.mark("then resets every actor's key") : "") }
            var cells = [
                Cell(
                    e.cutoff
                        + (e.heldBackBy.map { notes.mark("held back by \($0), whose position sets the cut-off") } ?? "")
                ),
                Cell(e.deletes + (e.onlyBy.map { notes.mark("deletes only what \($0) wrote") } ?? "")),
                Cell(names.joined(separator: ", ")), Cell(e.breaks, e.breaks.isEmpty ? nil : .red),
            ]
            if all { cells.append(Cell("rule: \(e.rule)")) }
            return cells
        }
        // A date (and its mark) is never wrapped.
        let cutoffWidth = entries.map { $0.cutoff.cells + 1 }.max() ?? 0
        var columns = [
            Column("Cut-off", fit: .wrap(min: cutoffWidth)), Column("Would delete", alignRight: true),
            Column("Strategies", fit: .wrap(min: 14), importance: .key),
        ]
        // The breaks under their row, when a row has any.
        let breaks = entries.contains { !$0.breaks.isEmpty }
        if breaks { columns.append(Column("Effect", fit: .below)) }
        if all { columns.append(Column("Rule", fit: .below)) }
        let shown = rows.map { row in breaks ? row : row.enumerated().filter { $0.offset != 3 }.map(\.element) }
        var sections: [Document.Section] = [.table(title: "Cleaner cut-offs now", columns: columns, rows: shown)]
        var said = notes.texts.enumerated().map { "\(Notes.superscript($0.offset + 1)) \($0.element)" }.joined(
            separator: "; ")
        if !said.isEmpty { said += "." }
        if !all && groups.count < entries.count {
            said += (said.isEmpty ? "" : " ") + "--all shows each strategy on its own row, with its rule."
        }
        if !said.isEmpty { sections.append(.note(said)) }
        return sections
    }

    /// One strategy's row, as shown: strategies whose rows would read the same share one.
    private struct Entry {
        var strategy: String, cutoff: String, deletes: String, breaks: String, rule: String
        var heldBackBy: String?, onlyBy: String?
        var resets: Bool

        init(_ effect: CleanerEffect, time: TimeFormatter) {
            let c = effect.cutoff
            let count = effect.transactionsToDelete
            let most = effect.transactionsToDeleteAtMost.flatMap { $0 > count ? $0 : nil }
            strategy = c.strategy.rawValue
            // Without a date, "every date" and a mark naming whose history: a long author in the first
            // column would wrap to the line's start and read as another row.
            cutoff = c.cutoff.map { time.display($0) } ?? (c.allDates ? "every date" : "no purge")
            deletes = !c.purges ? "-" : most.map { "\(count)–\($0)" } ?? "\(count)"
            let broken = effect.breaks.map { "\($0.actor) (\($0.status.rawValue))" }
            breaks = broken.isEmpty ? "" : "breaks " + broken.joined(separator: ", ")
            rule = c.reason
            heldBackBy = c.heldBackBy
            // A filter narrows a delete only when there is one (a cutoff date, or every date).
            onlyBy = c.cutoff == nil && !c.allDates ? nil : c.authorFilter.map { $0.joined(separator: ", ") }
            resets = c.resetsKeysAfterPurge
        }

        func sharesRow(with other: Entry) -> Bool {
            cutoff == other.cutoff && deletes == other.deletes && breaks == other.breaks
                && heldBackBy == other.heldBackBy && onlyBy == other.onlyBy
        }
    }

    /// The notes rows point to, each said once, numbered in the order first met.
    private struct Notes {
        var texts: [String] = []

        mutating func mark(_ text: String) -> String {
            if let i = texts.firstIndex(of: text) { return Self.superscript(i + 1) }
            texts.append(text)
            return Self.superscript(texts.count)
        }

        static func superscript(_ n: Int) -> String {
            let digits: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
            return String(String(n).compactMap { $0.wholeNumberValue.map { digits[$0] } })
        }
    }
}
