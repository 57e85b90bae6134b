import Foundation
import HistoryKit

/// What the store target runs on a store written from an input: the same
/// library calls as `cdhist info`, `entities`, `authors`, `transactions`,
/// `changes`, `show`, `export`, `timeline`, `token --store`, `actors`, `purge` (preview)
/// and `check`, read-only, and for a store with a `-wal` those of `saves`, `recover` and
/// `--at-save` (SaveChecks). Every input is opened, counted and exported; then
/// `part` (0, 1 or 2, derived from the input) picks the entities, authors and
/// listings, or show, token and purge previews, or actors, check and the saves: all of
/// it on a store of Photos' size takes seconds in a debug build with
/// AddressSanitizer, too close to the 5 s that count as a hang.
public enum StoreChecks {
    /// The evaluation time (2025-05-26), so runs do not depend on the clock.
    static let now: Double = 770_000_000

    /// Merge state from the fixtures' defaults plists and token files.
    static let fixtureRecords: [MergeRecord] = {
        let dir = FuzzRepository.fixtures.appendingPathComponent("MergeState").path
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
        var records: [MergeRecord] = []
        for file in files {
            let path = "\(dir)/\(file)"
            if file.hasSuffix(".plist"), let state = try? DefaultsReader.read(path: path, storeUUID: nil) {
                records += state.records
            } else if file.hasSuffix(".data"), let record = try? TokenFileReader.read(path: path, actor: file) {
                records.append(record)
            }
        }
        return records
    }()

    public static func run(path: String, part: Int) {
        let store: HistoryStore
        do {
            store = try HistoryStore.open(path, options: OpenOptions(busyTimeout: 0))
        } catch {
            Touch.error(error)
            return
        }
        for notice in store.notices { Touch.text(notice.description) }
        Touch.text(store.storeUUID)
        Touch.text(store.metadata.storeType)
        Touch.text(store.metadata.frameworkVersion)
        Touch.text(store.metadata.plistProblem)
        for v in store.metadata.modelVersionIdentifiers { Touch.text(v) }
        _ = store.files

        // info
        var stats: HistoryStatistics?
        attempt { stats = try store.statistics(countingChangeTypes: true) }
        attempt { _ = try store.transactionCount() }

        // The model and the decoder every change listing uses.
        var model = ModelResolution(model: nil, source: nil, problem: "not resolved")
        attempt { model = try store.resolveModel() }
        Touch.text(model.problem?.description)
        // (The decoder lays out every entity of the model; fuzz-model checks the layouts themselves.)
        let decoder = store.makeDecoder(model: model)

        // authors (the others in part 0)
        var authors: [String] = []
        attempt { authors = try store.fieldSummaries(.author).compactMap(\.value) }

        // export (every transaction with its changes), then listings with filters.
        var numbers: [Int64] = []
        var timestamps: [Double] = []
        attempt {
            try store.readTransactions(HistoryQuery(), decoder: decoder, layout: .oneRead) {
                try $0.forEach { tx, changes in
                    numbers.append(tx.number)
                    if let ts = tx.timestamp { timestamps.append(ts) }
                    Touch.transaction(tx)
                    try changes.forEach(Touch.change)
                }
            }
        }
        let middle = numbers.isEmpty ? 0 : numbers[numbers.count / 2]
        let someDate = timestamps.isEmpty ? 0 : timestamps[timestamps.count / 2]
        let firstEntity = store.catalog.entities.first?.name
        let listings: [HistoryQuery] = [
            HistoryQuery(limit: 3, order: .descending),
            HistoryQuery(
                after: .date(someDate), before: .transaction(middle &+ 5),
                authors: authors.prefix(2).map { .value($0) } + [.none]),
            HistoryQuery(
                after: .token(HistoryToken(storeUUID: store.storeUUID, transactionNumber: middle)),
                contextNames: [.none]),
            HistoryQuery(
                entities: firstEntity.map { [$0] } ?? [], includeSubentities: true, changeTypes: [.update, .delete],
                limit: 20),
        ]
        if part == 0 {
            // entities, authors, transactions and changes with filters
            attempt { _ = try store.entityChangeCounts() }
            for e in store.catalog.entities {
                _ = decoder.layout(forEntity: e.number)
                _ = store.catalog.rootTableName(of: e.number)
                _ = store.catalog.descendants(of: e.number)
            }
            for field in TransactionField.allCases where field != .author {
                attempt { _ = try store.fieldSummaries(field) }
            }
            // timeline and report: the activity per author in buckets (1, a narrow terminal, the report's 120, a wide terminal).
            for buckets in [1, 60, 120, 180] {
                attempt {
                    Touch.timeline(
                        try store.activityTimeline(bucketCount: buckets),
                        at: [someDate, timestamps.first ?? 0, timestamps.last ?? 0])
                }
            }
            for query in listings {
                attempt {
                    try store.readTransactions(query, decoder: nil, layout: .oneRead) {
                        try $0.forEach { tx, _ in Touch.transaction(tx) }
                    }
                }
                attempt {
                    try store.readChanges(query, decoder: decoder, layout: .oneRead) { try $0.forEach(Touch.change) }
                }
                attempt { _ = try store.countTransactions(query) }
            }
            return
        }
        if part == 1 {
            // show and token --store: the first, middle and last transactions and the extremes.
            for n in [numbers.first ?? 1, middle, numbers.last ?? 0, 0, -1, .max, .min] {
                attempt {
                    if let tx = try store.transaction(number: n) { Touch.transaction(tx) }
                    // show: the transaction with its changes, in one read.
                    let bounds = HistoryQuery.Bound.around(n...n)
                    try store.readTransactions(
                        HistoryQuery(after: bounds.after, before: bounds.before), decoder: decoder, layout: .oneRead
                    ) { try $0.forEach { _, changes in try changes.forEach(Touch.change) } }
                    _ = try store.countTransactions(HistoryQuery(after: .transaction(n)))
                }
            }
            for date in [someDate, stats?.timestamps?.lowerBound ?? 0, -.infinity, .nan, 1e300] {
                attempt { _ = try store.lastTransaction(atOrBefore: date, tolerance: 1) }
            }
            attempt { _ = try store.firstTransaction() }
        }

        // actors, purge previews of every cleaner's cut-off, check.
        var records = fixtureRecords
        for n in [numbers.first ?? 1, middle, numbers.last ?? 0, (numbers.last ?? 0) &+ 1, .max, .min] {
            records.append(
                MergeRecord(
                    actor: authors.first ?? "app",
                    position: .token(HistoryToken(storeUUID: store.storeUUID, transactionNumber: n)),
                    source: "fuzz", keyFormat: nil))
        }
        for date in [someDate, stats?.timestamps?.upperBound ?? 0, .nan, .infinity, -1e300] {
            records.append(
                MergeRecord(
                    actor: authors.last ?? "widget", position: .date(date, wholeSeconds: true), source: "fuzz",
                    keyFormat: nil))
        }
        // cloudkit: the mirroring tables, the objects changed since their export.
        var mirroring: MirroringState?
        attempt {
            mirroring = try MirroringState.read(in: store)
            for p in mirroring?.problems ?? [] { Touch.text(p) }
            if let backlog = try ExportBacklog.read(in: store, limit: 5) {
                Touch.sink &+= backlog.count &+ backlog.objects.count
            }
        }
        var report: MergeStateReport?
        attempt {
            let r = try MergeStateAnalyzer(
                store: store, declared: ["app", "widget"] + authors.prefix(3), batch: ["importer"],
                records: records, mirroring: mirroring, now: now
            ).report()
            Touch.report(r)
            report = r
        }
        if part == 1 {
            purgePreviews(store, report: report, middle: middle)
            return
        }
        // saves, recover and --at-save, when the store has a -wal.
        SaveChecks.run(store, path: path)
        var strict = CheckConfig()
        strict.maxTransactions = 0
        strict.maxChanges = 0
        strict.maxHistoryShare = 0
        strict.minHistoryBytes = 0
        strict.maxHistoryAgeDays = 0
        strict.maxPendingTransactions = 0
        strict.maxLagDays = 0
        strict.staleDays = 0
        strict.maxFreeShare = 0
        strict.maxExportPendingTransactions = 0
        strict.strategy = .apple
        // Every threshold at zero, so every rule writes its message (the default thresholds add
        // only the cases where nothing is reported, and a second pass costs as much again).
        attempt {
            let context = try CheckContext(
                store: store, mergeState: report, mirroring: mirroring, config: strict, model: model, now: now)
            for finding in try Checker.run(context) { Touch.text(finding.message.description) }
        }
    }

    static func attempt(_ body: () throws -> Void) {
        do { try body() } catch { Touch.error(error) }
    }

    /// `purge` previews: each cleaner's cut-off (several share one: each query runs
    /// once, with the breakdown) and everything before the middle transaction.
    static func purgePreviews(_ store: HistoryStore, report: MergeStateReport?, middle: Int64) {
        var queries: [HistoryQuery] = []
        for cutoff in report?.cleaners.map(\.cutoff) ?? [] {
            let query = HistoryQuery(
                before: cutoff.cutoff.map { .date($0) } ?? .transaction(.min),
                authors: (cutoff.authorFilter ?? []).map { .value($0) })
            if !queries.contains(query) { queries.append(query) }
        }
        let readers = HiddenReader.all(in: store)
        for query in queries {
            attempt {
                Touch.preview(
                    try PurgePlan.make(
                        query, in: store, actors: report?.actors ?? [], readers: readers, breakdown: true
                    ).preview)
            }
        }
        attempt {
            Touch.preview(
                try PurgePlan.make(
                    HistoryQuery(before: .transaction(middle)), in: store, actors: report?.actors ?? [],
                    readers: readers
                ).preview)
        }
    }
}

extension Touch {
    public static func transaction(_ tx: Transaction) {
        text(tx.author)
        text(tx.contextName)
        text(tx.bundleID)
        text(tx.processID)
        sink &+= tx.changeCount &+ Int(truncatingIfNeeded: tx.number)
    }

    static func timeline(_ t: ActivityTimeline, at dates: [Double]) {
        sink &+= t.bucketCount &+ t.undatedCount &+ Int(t.bucketSeconds.isFinite ? 1 : 0)
        for lane in t.lanes + [t.overflow].compactMap({ $0 }) {
            text(lane.author)
            sink &+= lane.total &+ lane.counts.reduce(0, &+)
        }
        for date in dates + [t.start, -.infinity, .nan, 1e300] { sink &+= t.bucket(of: date) ?? -1 }
        let top = t.topLanes(3)
        sink &+= top.lanes.count &+ top.otherAuthors &+ (top.others?.total ?? 0)
    }

    static func report(_ r: MergeStateReport) {
        for a in r.actors {
            text(a.name)
            text(a.explanation)
            text(a.advice.description)
            text(a.status.rawValue)
        }
        for c in r.cleaners.map(\.cutoff) {
            text(c.reason)
            text(c.heldBackBy)
        }
    }

    static func preview(_ p: PurgePreview) {
        sink &+=
            p.transactionCount &+ p.changeCount &+ p.survivingTransactions
            &+ Int(truncatingIfNeeded: p.reclaimableBytes)
        for c in p.consequences { text(c.message) }
        for s in p.stringsBecomingUnused { text(s) }
    }
}
