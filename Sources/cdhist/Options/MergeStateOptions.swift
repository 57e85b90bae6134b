import ArgumentParser
import Foundation
import HistoryKit

/// Where the merge state comes from: shared defaults, token files, an App Group folder.
struct MergeStateOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A shared defaults plist (binary or XML) holding merge positions (repeatable).", valueName: "plist"))
    var defaults: [String] = []

    @Option(name: .customLong("group-container"),
            help: ArgumentHelp("An App Group folder: finds the store, the defaults plist under Library/Preferences and token files.", valueName: "dir"))
    var groupContainer: String?

    @Option(help: ArgumentHelp("A token: a file (an archive, a plist holding one, or SwiftData's JSON) or a STOREUUID:N literal, optionally with its actor: [ACTOR=]FILE or [ACTOR=]STOREUUID:N (repeatable; the actor defaults to the file name or the literal).", valueName: "token"))
    var token: [String] = []

    @Option(help: ArgumentHelp("An actor the app declares, i.e. an author that merges (repeatable).", valueName: "name"))
    var actor: [String] = []

    @Option(name: .customLong("batch-actor"), help: ArgumentHelp("An author that only writes and never merges (repeatable).", valueName: "name"))
    var batchActor: [String] = []

    @Option(name: .customLong("key-prefix"), help: ArgumentHelp("Another defaults key prefix followed by the actor name (repeatable).", valueName: "prefix"))
    var keyPrefix: [String] = []

    @Option(help: ArgumentHelp("Evaluate as of this date instead of now.", valueName: "date"))
    var now: String?

    @Option(help: ArgumentHelp("How long the cleaners that can be set keep history (apple, phtk-1.0.4, appwise): 7d by default; 36h, 2w, ….",
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
        let container = try GroupContainer.discover(dir)
        guard container.stores.count == 1, let store = container.stores.first else {
            throw CLIError.notFound(path: dir, what: container.stores.isEmpty
                ? "no SQLite store below this folder"
                : "\(container.stores.count) stores below this folder; name one: \(container.stores.joined(separator: ", "))")
        }
        return store
    }

    /// Every position of `store` (its files' and CloudKit's in the store) analysed
    /// with the declared actors (the options' and `declared`/`batch`); the report
    /// is nil when there is nothing to analyse and `always` is false.
    func analyze(_ store: HistoryStore, declared: [String] = [], batch: [String] = [], now: Double,
                 always: Bool = false) throws -> MergeStateAnalysis {
        var (records, sources) = try records(storeUUID: store.storeUUID, storeName: store.path)
        let mirroring = try store.mirroringState()
        if let mirroring {
            let detail = mirroring.tables.isEmpty ? "kept in Z_METADATA (the first release's layout)" : plural(mirroring.tables.count, "ANSCK table")
            sources.append(MergeSource(path: store.path, kind: "CloudKit mirroring, \(detail)", positions: mirroring.exportPosition == nil ? 0 : 1,
                                       ignoredKeys: 0, otherStoreKeys: []))
            if verbose { for problem in mirroring.problems { printError("cdhist: note: \(store.path): CloudKit mirroring: \(problem)") } }
        }
        let declared = declared + actor
        let batch = batch + batchActor
        let given = !records.isEmpty || !declared.isEmpty || !batch.isEmpty || mirroring != nil
        let report = always || given
            ? try MergeStateAnalyzer(store: store, declared: declared, batch: batch, records: records, mirroring: mirroring, now: now,
                                     cleaners: cleanerSettings()).report()
            : nil
        return MergeStateAnalysis(sources: sources, mirroring: mirroring, report: report, isGiven: given)
    }

    /// The cleaners' settings the options give.
    func cleanerSettings() throws -> CleanerSettings {
        try CleanerSettings(retention: retention.map { try PositionParser.duration($0, option: "--retention") } ?? CleanerSettings.defaultRetention)
    }

    /// Every position recorded in files, with the sources read. Without `--defaults`, `--token`
    /// or `--group-container`, those of the container holding `storeName` (its App Group's shared
    /// defaults and token files, the standard defaults of the apps using the group), read where
    /// they lie, also inside a backup or an archive.
    func records(storeUUID: String, storeName: String? = nil) throws -> (records: [MergeRecord], sources: [MergeSource]) {
        let (plists, tokens, found) = try files(storeName: storeName)
        let beside = found.isEmpty ? "" : ", found beside the store"
        var records: [MergeRecord] = []
        var sources: [MergeSource] = []
        for path in plists {
            let state = try found[path].map { try DefaultsReader.read(bytes: $0, path: path, storeUUID: storeUUID, customPrefixes: keyPrefix) }
                ?? DefaultsReader.read(path: path, storeUUID: storeUUID, customPrefixes: keyPrefix)
            records += state.records
            sources.append(MergeSource(path: path, kind: "defaults (\(state.format.rawValue))\(beside)", positions: state.records.count,
                                       ignoredKeys: state.ignoredKeyCount, otherStoreKeys: state.otherStoreKeys))
            if verbose { for note in state.notes { printError("cdhist: note: \(note.text); ignored") } }
        }
        for spec in tokens {
            let (name, path) = Self.split(spec)
            guard !name.isEmpty else { throw CLIError.invalidValue(option: "--token", value: spec, reason: "the actor's name before '=' is empty") }
            guard name != MirroringState.exportActorName else {
                throw CLIError.invalidValue(option: "--token", value: spec, reason: "'\(name)' is CloudKit's exporter, which cdhist reads from the store; give the actor another name")
            }
            // A literal as `cdhist token` prints it (or a log shows it), when no such file exists.
            if !FileManager.default.fileExists(atPath: path), path.contains(":"), let token = try? HistoryTokenDecoder.parseLiteral(path) {
                records.append(MergeRecord(actor: name, position: .token(token), source: "literal \(path)", keyFormat: nil))
                sources.append(MergeSource(path: path, kind: "token literal", positions: 1, ignoredKeys: 0, otherStoreKeys: []))
                continue
            }
            do {
                records.append(try found[path].map { try TokenFileReader.read(bytes: $0, path: path, actor: name) } ?? TokenFileReader.read(path: path, actor: name))
                sources.append(MergeSource(path: path, kind: "token file\(beside)", positions: 1, ignoredKeys: 0, otherStoreKeys: []))
            } catch let error as TokenError {
                // Readable, but no token (JSON that maps no store): said, not fatal.
                printError("cdhist: note: \(describe(error)); ignored")
                sources.append(MergeSource(path: path, kind: "token file (no token)", positions: 0, ignoredKeys: 0, otherStoreKeys: []))
            }
        }
        return (records, sources)
    }

    /// The defaults plists and token specs to read: those given, the group container's, else
    /// those beside `storeName` (with their contents, read from a backup or an archive).
    private func files(storeName: String?) throws -> (plists: [String], tokens: [String], found: [String: [UInt8]]) {
        var plists = defaults
        var tokens = token
        if let dir = groupContainer {
            let container = try GroupContainer.discover(dir)
            plists += container.defaultsPlists.filter { !plists.contains($0) }
            tokens += container.tokenFiles.filter { !tokens.contains($0) }
        }
        if plists.isEmpty, tokens.isEmpty, let storeName, let near = try? StoreSurroundings.withFiles(of: storeName) {
            return (near.surroundings.defaultsPlists, near.surroundings.tokenFiles, near.contents)
        }
        return (plists, tokens, [:])
    }

    /// The files an examination of `storeName` reads, to hash before and after: the store's, the
    /// merge-state files ``records(storeUUID:storeName:)`` reads, and `others`.
    func evidenceInputs(storeName: String, others: [(EvidenceInput.Role, String?)]) throws -> [EvidenceInput] {
        let (plists, tokens, _) = try files(storeName: storeName)
        return EvidenceInput.examination(store: storeName, defaults: plists, tokens: tokens.map { Self.split($0).path }, others: others)
    }

    /// `ACTOR=FILE` or `FILE` (the actor is then the file name without extension),
    /// `ACTOR=STOREUUID:N` or `STOREUUID:N` (the actor is then the literal).
    static func split(_ spec: String) -> (actor: String, path: String) {
        if let eq = spec.firstIndex(of: "="), !FileManager.default.fileExists(atPath: spec) {
            return (String(spec[..<eq]), String(spec[spec.index(after: eq)...]))
        }
        if !FileManager.default.fileExists(atPath: spec), (try? HistoryTokenDecoder.parseLiteral(spec)) != nil { return (spec, spec) }
        return (URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent, spec)
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
}

/// Merge state as the commands use it: the positions, where they came from,
/// CloudKit's state, and their analysis.
struct MergeStateAnalysis {
    var sources: [MergeSource]
    var mirroring: MirroringState?
    var report: MergeStateReport?
    /// Whether there was any merge state at all: a position, a declared actor, a mirrored store.
    var isGiven: Bool
}

/// A file merge state was read from.
struct MergeSource {
    var path: String
    var kind: String
    var positions: Int
    var ignoredKeys: Int
    var otherStoreKeys: [String]
}
