import ArgumentParser

/// The one output-mode switch shared by every command.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, ndjson, csv

    /// The environment variable that sets the format of every command run without `--format`
    /// (scripts and CI: `CDHIST_FORMAT=json`).
    static let environmentVariable = "CDHIST_FORMAT"

    /// The format used when `--format` is not given: the one `CDHIST_FORMAT` names (JSON is
    /// `fallback`, a streaming command's NDJSON, where a command streams), else a table,
    /// whether stdout is a terminal, a pipe or a file.
    static func resolve(_ requested: OutputFormat?, environment: [String: String], fallback: OutputFormat = .json)
        -> OutputFormat
    {
        if let requested { return requested }
        guard let named = try? fromEnvironment(environment) else { return .table }
        return named == .json ? fallback : named
    }

    /// The format `CDHIST_FORMAT` names; nil when it is unset or empty. Throws for any other value.
    static func fromEnvironment(_ environment: [String: String]) throws -> OutputFormat? {
        guard let value = environment[environmentVariable], !value.isEmpty else { return nil }
        guard let format = OutputFormat(rawValue: value.lowercased()) else {
            throw CLIError.invalidValue(
                option: environmentVariable, value: value,
                reason: "not a format (use table, json, ndjson or csv, or unset it)")
        }
        return format
    }
}

/// The version tag every JSON document and NDJSON line carries.
let jsonFormatTag = "cdhist/1"
