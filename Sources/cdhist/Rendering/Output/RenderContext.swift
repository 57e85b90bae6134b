import Foundation

/// Everything a renderer needs to know about where and how to write.
struct RenderContext {
    let format: OutputFormat
    let terminal: Terminal
    let time: TimeFormatter
    let output: Output
    /// CSV text cells exactly as they are, even those a spreadsheet would evaluate (``CSV``).
    var csvRaw = false

    var color: Bool { terminal.colorEnabled && format == .table }

    func style(_ text: String, _ style: Style) -> String { style.apply(text, enabled: color) }
}
