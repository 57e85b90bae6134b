import ArgumentParser
import Foundation
import HistoryKit

/// Where the merge state comes from: shared defaults, token files, an App Group folder; the
/// clock and the cleaners' retention it is judged with. Every command that reads merge state
/// takes these (``MergeStateOptions`` adds the actors an app declares).
struct MergeSourceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A shared defaults plist (binary or XML) holding merge positions (repeatable).", valueName: "plist"))
    var defaults: [String] = []

    @Option(
        name: .customLong("group-container"),
        help: ArgumentHelp(
            "An App Group folder: finds the store, the defaults plist under Library/Preferences and token files.",
            valueName: "dir"))
    var groupContainer: String?

    @Option(
        help: ArgumentHelp(
            """
            A token: a file (an archive, a plist holding one, or SwiftData's JSON) or a STOREUUID:N literal, \
            optionally with its actor: [ACTOR=]FILE or [ACTOR=]STOREUUID:N (repeatable; the actor defaults to the \
            file name or the literal).
            """,
            valueName: "token"))
    var token: [String] = []

    @Option(
        name: .customLong("key-prefix"),
        help: ArgumentHelp("Another defaults key prefix followed by the actor name (repeatable).", valueName: "prefix"))
    var keyPrefix: [String] = []

    @Option(
        help: ArgumentHelp(
            """
            Evaluate as of this date instead of now; lags are then measured to it (without it, to the store's \
            newest transaction, unless the store is live).
            """,
            valueName: "date"))
    var now: String?

    @Option(
        help: ArgumentHelp(
            """
            How long the cleaners that can be set keep history (apple, apple-604800, phtk-1.0.4, appwise): 7d by \
            default; 36h, 2w, …; apple counts whole days as calendar days.
            """,
            valueName: "duration"))
    var retention: String?

    @Flag(help: "Say on standard error which values were passed over and why (JSON that is no history token, …).")
    var verbose = false

    /// The store path: the argument, or the single store of the group container.
    func storePath(_ argument: String?) throws -> String {
        if let argument { return argument }
        guard let dir = groupContainer else {
            throw ValidationError("give a store, or --group-container with the App Group folder")
        }
        return try MergeStateRequest.store(inAppGroupFolder: dir)
    }

    /// The request these options make, with the actors `declared` and `batch` besides theirs.
    /// `utc`: calendar days (Apple's cleaner) are counted in UTC, as `--utc` reads dates,
    /// instead of the local time zone (`TZ`), standing for the device's.
    /// `model`: the model the user gave, for the readers it shows.
    func request(declared: [String] = [], batch: [String] = [], now: Double, utc: Bool, model: String? = nil) throws
        -> MergeStateRequest
    {
        MergeStateRequest(
            defaults: defaults, tokens: token, groupContainer: groupContainer, keyPrefixes: keyPrefix,
            declared: declared, batch: batch,
            cleaners: try CleanerSettings(
                retention: retention.map { try PositionParser.duration($0, option: "--retention") }
                    ?? CleanerSettings.defaultRetention, timeZone: utc ? CleanerSettings.utc : TimeZone.current),
            now: now, nowIsGiven: self.now != nil, modelPath: model)
    }

    /// `store`'s merge state as the options ask (see ``MergeStateRequest``); what was passed over is
    /// noted on `console`'s standard error (values that are no merge position only with --verbose).
    func analyze(
        _ store: HistoryStore, declared: [String] = [], batch: [String] = [], now: Double, utc: Bool,
        model: String? = nil, always: Bool = false, notesTo console: Console
    ) throws -> MergeStateAnalysis {
        let analysis = try MergeStateAnalysis.gather(
            in: store, try request(declared: declared, batch: batch, now: now, utc: utc, model: model), always: always)
        printNotes(analysis, to: console)
        return analysis
    }

    /// What reading the merge state passed over, on standard error (values that are no merge
    /// position only with --verbose).
    func printNotes(_ analysis: MergeStateAnalysis, to console: Console) {
        for note in analysis.notes where verbose || !note.onRequest {
            console.printError("cdhist: note: \(note.text.text)")
        }
    }

    /// The files an examination of `storeName` reads, to hash before and after.
    func evidenceInputs(storeName: String, others: [(EvidenceInput.Role, String?)]) throws -> [EvidenceInput] {
        try request(now: 0, utc: true).evidenceInputs(storeName: storeName, others: others)
    }

    /// Cocoa seconds of `--now`, or the current time.
    func evaluationTime(utc: Bool) throws -> Double {
        guard let now else { return Date().timeIntervalSinceReferenceDate }
        return try PositionParser(utc: utc).date(now, option: "--now")
    }

    /// A parser whose relative dates (`7d`, `now`) count back from `--now` when it is given.
    func positionParser(utc: Bool) throws -> PositionParser {
        PositionParser(utc: utc, now: Date(timeIntervalSinceReferenceDate: try evaluationTime(utc: utc)))
    }

    /// The sources as options, for a command to run next on the same merge state.
    var words: [String] {
        let repeated: [(String, [String])] = [
            ("--defaults", defaults), ("--token", token), ("--group-container", groupContainer.map { [$0] } ?? []),
            ("--key-prefix", keyPrefix), ("--now", now.map { [$0] } ?? []),
            ("--retention", retention.map { [$0] } ?? []),
        ]
        return repeated.flatMap { option, values in values.flatMap { [option, $0] } }
    }
}

/// The merge-state sources and the actors an app declares: what `actors`, `check`, `purge`,
/// `timeline` and `report` read merge state with.
struct MergeStateOptions: ParsableArguments {
    @OptionGroup var sources: MergeSourceOptions

    @Option(
        help: ArgumentHelp("An actor the app declares, i.e. an author that merges (repeatable).", valueName: "name"))
    var actor: [String] = []

    @Option(
        name: .customLong("batch-actor"),
        help: ArgumentHelp("An author that only writes and never merges (repeatable).", valueName: "name"))
    var batchActor: [String] = []

    var now: String? { sources.now }

    func storePath(_ argument: String?) throws -> String { try sources.storePath(argument) }

    /// ``MergeSourceOptions/request(declared:batch:now:utc:model:)`` with the actors declared here.
    func request(declared: [String] = [], batch: [String] = [], now: Double, utc: Bool, model: String? = nil) throws
        -> MergeStateRequest
    {
        try sources.request(declared: declared + actor, batch: batch + batchActor, now: now, utc: utc, model: model)
    }

    /// ``MergeSourceOptions/analyze(_:declared:batch:now:utc:model:always:notesTo:)`` with the actors
    /// declared here.
    func analyze(
        _ store: HistoryStore, declared: [String] = [], batch: [String] = [], now: Double, utc: Bool,
        model: String? = nil, always: Bool = false, notesTo console: Console
    ) throws -> MergeStateAnalysis {
        try sources.analyze(
            store, declared: declared + actor, batch: batch + batchActor, now: now, utc: utc, model: model,
            always: always, notesTo: console)
    }

    func evidenceInputs(storeName: String, others: [(EvidenceInput.Role, String?)]) throws -> [EvidenceInput] {
        try sources.evidenceInputs(storeName: storeName, others: others)
    }

    func evaluationTime(utc: Bool) throws -> Double { try sources.evaluationTime(utc: utc) }

    func printNotes(_ analysis: MergeStateAnalysis, to console: Console) { sources.printNotes(analysis, to: console) }

    func positionParser(utc: Bool) throws -> PositionParser { try sources.positionParser(utc: utc) }
}
