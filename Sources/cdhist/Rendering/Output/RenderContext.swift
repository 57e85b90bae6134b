import Foundation
import HistoryKit

/// Everything a renderer needs to know about where and how to write.
struct RenderContext {
    let format: OutputFormat
    let terminal: Terminal
    let time: TimeFormatter
    let output: Output
    /// Where notes and warnings go (its standard error), beside the output.
    let console: Console
    /// CSV text cells exactly as they are, even those a spreadsheet would evaluate (``CSV``).
    var csvRaw = false
    /// The save the store is read at, which every JSON document names (`atSave`); the other
    /// formats carry it from the output's first bytes (``reading(_:)``).
    var stamp: SaveStamp?
    /// What every JSON document warns of about the store read (`warnings`): a damaged `-wal`.
    var storeWarnings: [String] = []

    var color: Bool { terminal.colorEnabled && format == .table }

    func style(_ text: String, _ style: Style) -> String { style.apply(text, enabled: color) }

    /// This context for output about `store`: read at a save, a table begins with a line that
    /// says which, NDJSON with a line of kind `atSave`, CSV with a column `atSave`, and a JSON
    /// document has an `atSave` member; the store's warnings go into JSON documents. Lines that
    /// must each be whole events (Timesketch's) carry the save themselves: `eventLines`.
    func reading(_ store: HistoryStore, eventLines: Bool = false) throws -> RenderContext {
        var context = self
        context.storeWarnings = store.notices.filter(\.isWarning).map(\.message.text)
        context.stamp = try SaveStamp.of(store)
        context.beginOutput(eventLines: eventLines)
        return context
    }

    /// The same context writing to `output` instead (a file), which the save begins as it would
    /// have begun this one's.
    func writing(to output: Output, eventLines: Bool = false) -> RenderContext {
        let context = RenderContext(
            format: format, terminal: terminal, time: time, output: output, console: console, csvRaw: csvRaw,
            stamp: stamp, storeWarnings: storeWarnings)
        context.beginOutput(eventLines: eventLines)
        return context
    }

    /// Has the output begin with the save, in the context's format.
    private func beginOutput(eventLines: Bool) {
        guard let stamp else { return }
        switch format {
        case .table:
            let lines = terminal.width.map { TextWrap.lines(stamp.sentence, width: $0) } ?? [stamp.sentence]
            output.begin(with: Array((lines.map { style($0, .bold) }.joined(separator: "\n") + "\n\n").utf8))
        case .ndjson:
            if !eventLines { output.begin(with: stamp.ndjsonLine) }
        case .csv:
            output.prefixCSVRecords(name: "atSave", value: stamp.description)
        case .json:
            break
        }
    }

    /// The members every JSON document has after its kind: `atSave` when the store is read at
    /// a save, `warnings` when the store read is not all its files hold.
    var documentMembers: [(String, JSONValue)] {
        (stamp.map { [("atSave", $0.json)] } ?? [])
            + (storeWarnings.isEmpty ? [] : [("warnings", .array(storeWarnings.map { .string($0) }))])
    }
}
