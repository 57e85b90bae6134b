import ArgumentParser
import Foundation
import HistoryKit

/// The store argument and how to decode it.
struct StoreOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            """
            The Core Data store file (.sqlite, .store), or a name cdhist stores prints (a file inside a backup or \
            a zip).
            """,
            valueName: "store"), completion: .custom(StoreNameCompletion.shell))
    var store: String

    @OptionGroup var booted: BootedOptions

    @Option(
        help: ArgumentHelp(
            "Model to decode with instead of the store's cache: a .mom, .momd, .xcdatamodel or .xcdatamodeld.",
            valueName: "path"))
    var model: String?

    @OptionGroup var lock: LockOptions

    var lockTimeout: Double { lock.lockTimeout }
}

/// How long to wait for a lock another process holds.
struct LockOptions: ParsableArguments {
    @Option(
        name: .customLong("lock-timeout"),
        help: ArgumentHelp("Seconds to wait for another process's lock.", valueName: "seconds"))
    var lockTimeout: Double = 2

    func validate() throws {
        guard OpenOptions.busyTimeoutRange.contains(lockTimeout) else {
            throw ValidationError(
                """
                --lock-timeout takes seconds from 0 to \(Int(OpenOptions.busyTimeoutRange.upperBound)), not \
                \(lockTimeout)
                """
            )
        }
    }
}

/// How to write results.
struct OutputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Output format: table, json, ndjson or csv (default: table, or what the CDHIST_FORMAT environment \
            variable names).
            """,
            valueName: "format"))
    var format: OutputFormat?

    @OptionGroup var flags: OutputFlags

    var utc: Bool { flags.utc }
    var csvRaw: Bool { flags.csvRaw }

    /// How to write in `context`: to `output`, else its console's standard output.
    func context(in context: CommandContext, fallback: OutputFormat = .json, output: Output? = nil) -> RenderContext {
        RenderContext.make(format: format, fallback: fallback, flags: flags, output: output, in: context)
    }
}

/// Time zone, colour and CSV formulas: how every command writes, whatever its format.
struct OutputFlags: ParsableArguments {
    @Flag(
        help:
            """
            Show times in UTC instead of local time (and read dates without a zone, and count the apple cleaner's \
            calendar days, in UTC).
            """
    )
    var utc = false

    @Flag(name: .customLong("no-color"), help: "Never colour the output (also: the NO_COLOR environment variable).")
    var noColor = false

    @Flag(
        name: .customLong("csv-raw"),
        help:
            "With --format csv, write text exactly, even cells a spreadsheet would run as a formula (first =, +, -, @)."
    )
    var csvRaw = false
}

extension RenderContext {
    /// The context of a command's output options: in a session its terminal (output through the
    /// pager is still for a person), else the console's; `format`, else `CDHIST_FORMAT`'s, else a
    /// table; to `output`, else the console's standard output.
    static func make(
        format: OutputFormat?, fallback: OutputFormat, flags: OutputFlags, output: Output?, in context: CommandContext
    ) -> RenderContext {
        let console = context.console
        let terminal =
            context.session?.terminal?.insideSession(noColor: flags.noColor)
            ?? Terminal.of(console, noColor: flags.noColor)
        return RenderContext(
            format: OutputFormat.resolve(format, environment: console.environment, fallback: fallback),
            terminal: terminal, time: TimeFormatter(utc: flags.utc),
            output: output ?? Output(console: console, whenClosed: context.session?.standardOutputClosed),
            console: console, csvRaw: flags.csvRaw)
    }
}

/// `export`'s formats: the lines and the document other commands write, and Timesketch's events.
enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
    case ndjson, json, csv, timesketch

    /// The output mode of the rest of cdhist (Timesketch's events are lines of JSON).
    var outputFormat: OutputFormat { self == .csv ? .csv : self == .json ? .json : .ndjson }
}

/// How `export` writes: ``OutputOptions`` with Timesketch's events among its formats.
struct ExportOutputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Output format: ndjson (a transaction per line; the default), json, csv (a row per change) or \
            timesketch (an event per change, JSON Lines for Timesketch).
            """,
            valueName: "format"))
    var format: ExportFormat?

    @OptionGroup var flags: OutputFlags

    /// How to write in `context`: to `output`, else its console's standard output.
    func context(in context: CommandContext, output: Output? = nil) -> RenderContext {
        RenderContext.make(
            format: (format ?? .ndjson).outputFormat, fallback: .ndjson, flags: flags, output: output, in: context)
    }
}

/// Transaction and change filters, with Core Data's semantics.
struct FilterOptions: ParsableArguments {
    @OptionGroup var range: RangeOptions
    @OptionGroup var selection: SelectionOptions

    @Option(help: ArgumentHelp("At most this many rows.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Newest first.")
    var reverse = false

    func query(utc: Bool) throws -> HistoryQuery {
        if let limit, limit < 0 {
            throw CLIError.invalidValue(option: "--limit", value: String(limit), reason: "must not be negative")
        }
        var query = try selection.query()
        try range.apply(to: &query, utc: utc)
        query.limit = limit
        query.order = reverse ? .descending : .ascending
        return query
    }
}

/// `--after` and `--before`.
struct RangeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only transactions after this date, tx:N, token:FILE or token:STOREUUID:N (timestamp > date, number > N).",
            valueName: "position"))
    var after: String?

    @Option(
        help: ArgumentHelp(
            "Only transactions before this date, tx:N, token:FILE or token:STOREUUID:N (timestamp < date, number < N).",
            valueName: "position"))
    var before: String?

    /// The token files the bounds read.
    var tokenFiles: [String] { [after, before].compactMap { $0.flatMap(PositionParser.tokenFile) } }

    func apply(to query: inout HistoryQuery, utc: Bool) throws {
        let parser = PositionParser(utc: utc)
        query.after = try after.map { try parser.bound($0, option: "--after") }
        query.before = try before.map { try parser.bound($0, option: "--before") }
    }
}

/// Which transactions and changes, whatever their place in history: names, entities, types, objects.
struct SelectionOptions: ParsableArguments {
    @OptionGroup var names: NameFilterOptions

    @Option(
        help: ArgumentHelp("Only changes of this entity (repeatable).", valueName: "name"),
        completion: .custom(ObjectCompletion.shellEntities))
    var entity: [String] = []

    @Flag(name: .customLong("include-subentities"), help: "With --entity, also match its subentities.")
    var includeSubentities = false

    @Option(help: ArgumentHelp("Only this change type: insert, update or delete (repeatable).", valueName: "type"))
    var type: [String] = []

    @Option(
        help: ArgumentHelp(
            """
            Only changes to this object: ENTITY/pN or x-coredata://STOREUUID/ENTITY/pN, as an app logs its \
            objectID (repeatable).
            """,
            valueName: "id"), completion: .custom(ObjectCompletion.shellObjects))
    var object: [String] = []

    /// Every transaction and change that these options select.
    func query() throws -> HistoryQuery {
        var types: Set<ChangeType> = []
        for t in type {
            guard let parsed = ChangeType(name: t) else {
                throw CLIError.invalidValue(option: "--type", value: t, reason: "expected insert, update or delete")
            }
            types.insert(parsed)
        }
        return HistoryQuery(
            authors: names.authors, contextNames: names.contextNames, bundleIDs: names.bundleIDs,
            processIDs: names.processIDs,
            entities: entity, includeSubentities: includeSubentities, changeTypes: types,
            objects: try object.map { try Self.object($0, option: "--object") })
    }

    /// The object `text` names; `option` is where it was given.
    static func object(_ text: String, option: String) throws -> ObjectReference {
        do {
            return try ObjectReference(parsing: text)
        } catch let error as ObjectReferenceError {
            throw CLIError.invalidValue(option: option, value: text, reason: error.reason)
        }
    }
}

/// Author, context, bundle and process filters (`-`, as tables write a missing value, or
/// `none` matches it).
struct NameFilterOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Only this author (repeatable, OR-ed; '-' or 'none' matches transactions without one, as tables show \
            them).
            """,
            valueName: "name"))
    var author: [String] = []

    @Option(help: ArgumentHelp("Only this context name (repeatable; '-' or 'none' for none).", valueName: "name"))
    var context: [String] = []

    @Option(help: ArgumentHelp("Only this bundle ID (repeatable; '-' or 'none' for none).", valueName: "id"))
    var bundle: [String] = []

    @Option(help: ArgumentHelp("Only this process name (repeatable; '-' or 'none' for none).", valueName: "name"))
    var process: [String] = []

    var authors: [HistoryQuery.NameFilter] { Self.filters(author) }
    var contextNames: [HistoryQuery.NameFilter] { Self.filters(context) }
    var bundleIDs: [HistoryQuery.NameFilter] { Self.filters(bundle) }
    var processIDs: [HistoryQuery.NameFilter] { Self.filters(process) }

    /// The transactions these names select.
    var query: HistoryQuery {
        HistoryQuery(authors: authors, contextNames: contextNames, bundleIDs: bundleIDs, processIDs: processIDs)
    }

    private static func filters(_ values: [String]) -> [HistoryQuery.NameFilter] {
        values.map { missingSpellings.contains($0) ? .none : .value($0) }
    }

    /// How a missing value is written: `-` in tables, `none`, and the timeline's `(no author)`.
    static let missingSpellings: Set = [
        "-", "none", "(no author)", "(no context name)", "(no bundle ID)", "(no process)",
    ]
}
