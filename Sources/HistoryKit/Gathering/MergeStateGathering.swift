import Foundation
import HistoryAnalysis
import HistoryPlaces
import HistoryReading

/// A store's merge state as the commands use it: the positions, where they came from,
/// CloudKit's state, their analysis, and what was passed over.
public struct MergeStateAnalysis: Sendable {
    public var sources: [MergeSource]
    public var mirroring: MirroringState?
    /// Nil when there was nothing to analyse and the analysis was not asked for anyway.
    public var report: MergeStateReport?
    /// Whether there was any merge state at all: a position, a declared actor, a mirrored store.
    public var isGiven: Bool
    /// What was passed over while reading, and why.
    public var notes: [MergeStateNote]
    /// Readers of history whose positions no file shows (the Spotlight delegate), whether or not
    /// there is a report.
    public var hiddenReaders: [HiddenReader]
    /// The prefix the defaults keys were found to share before their actors' names, when none was
    /// given (`historyToken.` of `historyToken.<actor>`): read as `--key-prefix` would read it.
    public var inferredKeyPrefix: String? = nil
}

extension MergeStateAnalysis {
    /// Every position of `store` that `request` leads to (its files', and CloudKit's in the
    /// store) analysed with the declared actors; the report is nil when there is nothing to
    /// analyse and `always` is false.
    public static func gather(in store: HistoryStore, _ request: MergeStateRequest, always: Bool = false) throws
        -> MergeStateAnalysis
    {
        let path = store.path
        var gathered = try request.records(storeUUID: store.storeUUID, storeName: path)
        // Keys sharing a prefix before authors' names are those authors' positions, as --key-prefix would make them.
        let resolved =
            request.keyPrefixes.isEmpty
            ? try KeyPrefixInference.resolve(gathered.records, isAuthor: store.hasAuthor) : nil
        let inferred = resolved?.prefix
        if let resolved, let inferred {
            gathered.records = resolved.records
            let files = Set(gathered.records.filter { $0.keyFormat == .customPrefix(inferred) }.compactMap(\.file))
            for i in gathered.sources.indices where files.contains(gathered.sources[i].path) {
                gathered.sources[i].inferredKeyPrefix = inferred
            }
        }
        let mirroring = try MirroringState.read(in: store)
        if let mirroring {
            let detail =
                mirroring.tables.isEmpty
                ? "kept in Z_METADATA (the first release's layout)" : plural(mirroring.tables.count, "ANSCK table")
            gathered.sources.append(
                MergeSource(
                    path: path, kind: "CloudKit mirroring, \(detail)",
                    positions: mirroring.exportPosition == nil ? 0 : 1,
                    ignoredKeys: 0, otherStoreKeys: []))
            gathered.notes += mirroring.problems.map {
                MergeStateNote(text: "\(path): CloudKit mirroring: \($0)", onRequest: true)
            }
        }
        let given = !gathered.records.isEmpty || !request.declared.isEmpty || !request.batch.isEmpty || mirroring != nil
        var report =
            always || given
            ? try MergeStateAnalyzer(
                store: store, declared: request.declared, batch: request.batch, records: gathered.records,
                mirroring: mirroring,
                now: request.now, nowIsGiven: request.nowIsGiven, cleaners: request.cleaners
            ).report()
            : nil
        let readers = HiddenReader.all(in: store, modelPath: request.modelPath)
        report?.hiddenReaders = readers
        return MergeStateAnalysis(
            sources: gathered.sources, mirroring: mirroring, report: report, isGiven: given, notes: gathered.notes,
            hiddenReaders: readers, inferredKeyPrefix: inferred)
    }
}

extension MergeStateRequest {
    /// The one store below the App Group folder `dir`; an error names them when there are several.
    public static func store(inAppGroupFolder dir: String) throws -> String {
        let container = try GroupContainer.discover(dir)
        guard container.stores.count == 1, let store = container.stores.first else {
            throw MergeStateError.noSingleStore(
                path: dir,
                reason: container.stores.isEmpty
                    ? "no SQLite store below this folder"
                    : """
                    \(container.stores.count) stores below this folder; name one: \
                    \(container.stores.joined(separator: ", "))
                    """
            )
        }
        return store
    }

    /// Every position recorded in files for the store `storeUUID`, with the sources read. Without
    /// defaults, tokens or a group container, those of the container holding `storeName` (its App
    /// Group's shared defaults and token files, the standard defaults of the apps using the group),
    /// read where they lie, also inside a backup or an archive.
    func records(storeUUID: String, storeName: String? = nil) throws
        -> (records: [MergeRecord], sources: [MergeSource], notes: [MergeStateNote])
    {
        let (plists, tokens, found) = try files(storeName: storeName)
        let beside = found.isEmpty ? "" : ", found beside the store"
        var records: [MergeRecord] = []
        var sources: [MergeSource] = []
        var notes: [MergeStateNote] = []
        for path in plists {
            let state =
                try found[path].map {
                    try DefaultsReader.read(bytes: $0, path: path, storeUUID: storeUUID, customPrefixes: keyPrefixes)
                }
                ?? DefaultsReader.read(path: path, storeUUID: storeUUID, customPrefixes: keyPrefixes)
            records += state.records
            sources.append(
                MergeSource(
                    path: path, kind: "defaults (\(state.format.rawValue))\(beside)", positions: state.records.count,
                    ignoredKeys: state.ignoredKeyCount, otherStoreKeys: state.otherStoreKeys))
            notes += state.notes.map { MergeStateNote(text: "\($0); ignored", onRequest: true) }
        }
        for spec in tokens {
            let token = TokenSpec(spec)
            let (name, path) = (token.actor, token.value)
            guard !name.isEmpty else {
                throw MergeStateError.invalidTokenSpec(spec: spec, reason: "the actor's name before '=' is empty")
            }
            guard name != MirroringState.exportActorName else {
                throw MergeStateError.invalidTokenSpec(
                    spec: spec,
                    reason:
                        """
                        '\(name)' is CloudKit's exporter, which cdhist reads from the store; give the actor \
                        another name
                        """
                )
            }
            // A literal as `cdhist token` prints it (or a log shows it), when no such file exists.
            let bytes: [UInt8]
            switch try TokenSource.read(path, found: found) {
            case .literal(let token):
                records.append(
                    MergeRecord(actor: name, position: .token(token), source: "literal \(path)", keyFormat: nil))
                sources.append(
                    MergeSource(path: path, kind: "token literal", positions: 1, ignoredKeys: 0, otherStoreKeys: []))
                continue
            case .file(_, let read): bytes = read
            }
            do {
                records.append(try TokenFileReader.read(bytes: bytes, path: path, actor: name, storeUUID: storeUUID))
                // A dictionary of tokens per store: the others are the app's other stores'.
                let others =
                    JSONText.looksLikeJSON(bytes)
                    ? JSONTokenDecoder.otherStores(json: bytes, source: path, storeUUID: storeUUID) : []
                sources.append(
                    MergeSource(
                        path: path, kind: "token file\(beside)", positions: 1, ignoredKeys: 0, otherStoreKeys: others))
            } catch let error as TokenError where !error.isOtherKindOfFile {
                // Readable, but no token (JSON that maps no store): said, not fatal.
                notes.append(MergeStateNote(text: "\(error); ignored", onRequest: false))
                sources.append(
                    MergeSource(
                        path: path, kind: "token file (no token)", positions: 0, ignoredKeys: 0, otherStoreKeys: []))
            }
        }
        return (records, sources, notes)
    }

    /// The files an examination of `storeName` reads, to hash before and after: the store's, the
    /// merge-state files `records(storeUUID:storeName:)` reads, and `others`. With
    /// `requireGiven`, a defaults plist or token file named that is not there is an error.
    public func evidenceInputs(storeName: String, others: [(EvidenceInput.Role, String?)], requireGiven: Bool = false)
        throws -> [EvidenceInput]
    {
        if requireGiven {
            for path in defaults + tokens.map({ TokenSpec($0).value })
            where FileStatus(path) == nil && PackedReference.resolve(path) == nil {
                throw MergeStateError.noFileToHash(path: path)
            }
        }
        let (plists, tokens, _) = try files(storeName: storeName)
        return EvidenceInput.examination(
            store: storeName, defaults: plists, tokens: tokens.map { TokenSpec($0).value }, others: others)
    }

    /// Checks that each defaults plist can be read as shared defaults.
    public func checkDefaults() throws {
        for path in defaults { _ = try DefaultsReader.read(path: path, storeUUID: nil, customPrefixes: keyPrefixes) }
    }

    /// The actors the defaults plists name for the store `storeUUID` (any store's when nil);
    /// a plist that cannot be read names none.
    public func actorNames(storeUUID: String?) -> [String] {
        defaults.flatMap { path in
            ((try? DefaultsReader.read(path: path, storeUUID: storeUUID, customPrefixes: keyPrefixes))?.records ?? [])
                .map(\.actor)
        }
    }

    /// The defaults plists and token specs to read: those given, the group container's, else
    /// those beside `storeName` (with their contents, read from a backup or an archive).
    private func files(storeName: String?) throws -> (plists: [String], tokens: [String], found: [String: [UInt8]]) {
        var plists = defaults
        var tokens = self.tokens
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
}
