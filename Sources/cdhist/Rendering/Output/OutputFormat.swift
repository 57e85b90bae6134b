import ArgumentParser

/// The one output-mode switch shared by every command.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, ndjson, csv

    /// The format used when `--format` is not given: a table on a terminal,
    /// otherwise `fallback` (JSON for documents, NDJSON for `export`).
    static func resolve(_ requested: OutputFormat?, terminal: Terminal, fallback: OutputFormat = .json) -> OutputFormat {
        requested ?? (terminal.stdoutIsTerminal ? .table : fallback)
    }
}

/// The version tag every JSON document and NDJSON line carries.
let jsonFormatTag = "cdhist/1"
