import HistoryReading

/// Evaluates recorded merge positions against a store: for each actor, what
/// it merged, what is pending, and whether Core Data will fail or skip.
public struct MergeStateAnalyzer {
    public let store: HistoryStore
    /// Actors the app declares (`--actor`).
    public var declared: [String]
    /// Actors that only write (`--batch-actor`).
    public var batch: [String]
    /// Positions found in defaults and token files.
    public var records: [MergeRecord]
    /// CloudKit mirroring's state: its exporter is an actor of its own, with its position in the store.
    public var mirroring: MirroringState?
    /// Cocoa seconds to evaluate at.
    public var now: Double
    /// `now` is a time the user gave: lags are measured to it (``LagClock``).
    public var nowIsGiven: Bool
    /// What the cleaners are configured with (their retention).
    public var cleaners: CleanerSettings

    public init(
        store: HistoryStore, declared: [String], batch: [String], records: [MergeRecord],
        mirroring: MirroringState? = nil, now: Double,
        nowIsGiven: Bool = false, cleaners: CleanerSettings = CleanerSettings()
    ) {
        self.store = store
        self.nowIsGiven = nowIsGiven
        self.declared = declared
        self.batch = batch
        self.records = records
        self.mirroring = mirroring
        self.now = now
        self.cleaners = cleaners
    }

    public func report() throws -> MergeStateReport {
        let first = try store.firstTransaction()
        // History was purged from the start when the oldest transaction is not #1.
        let purged = (first?.number ?? 1) > 1

        var names: [String] = []
        func add(_ n: String) { if !names.contains(n) { names.append(n) } }
        declared.forEach(add)
        batch.forEach(add)
        records.map(\.actor).forEach(add)
        // The mirror's exporter is an actor whenever the store is mirrored, with a position or not.
        let exporter = mirroring.map { _ in MirroringState.exportActorName }
        exporter.map(add)
        let allRecords = records + (mirroring?.exportPosition.map { [$0] } ?? [])
        var located: [String: Located] = [:]
        for name in names {
            let own = allRecords.filter { $0.actor == name && ($0.kind == .cloudKit) == (name == exporter) }
            located[name] = try locate(name, records: own.sorted { Self.rank($0.position) < Self.rank($1.position) })
        }
        // An exporter without a position exports all that remains.
        if let exporter, located[exporter]?.record == nil { located[exporter]?.pendingFrom = .all }
        // The app's actors: declared or with recorded state; each cleaner decides what its batch
        // actors count for. CloudKit's exporter is no actor of the app's cleaners: they neither
        // wait for it nor purge its authors.
        let appActors = names.filter {
            $0 != exporter && (declared.contains($0) || batch.contains($0) || !(located[$0]?.records ?? []).isEmpty)
        }
        let input = CleanerInput(
            actors: appActors.map {
                CleanerInput.Actor(
                    name: $0, date: located[$0]?.effectiveDate, isBatch: batch.contains($0),
                    wholeSeconds: (located[$0]?.tolerance ?? 0) > 0)
            },
            now: now, settings: cleaners)
        let cutoffs = CleanerStrategy.allCases.map { $0.cutoff(input) }

        // Every count comes from one pass through the transactions: what is pending after each
        // actor's position (surely, and for a whole-second date what may be), what each cut-off
        // deletes (and a second later for a whole-second cut-off), and whom each cut-off breaks.
        let n = names.count
        let m = cutoffs.count
        let pendingBounds = names.map { located[$0]?.pendingFrom }
        let perhapsBounds = names.map { located[$0]?.perhapsPendingFrom }
        // A cleaner without a cut-off date takes what its author filter selects at every date.
        let cutoffBounds = cutoffs.map { c in
            c.cutoff.map { ScanBound.beforeDate($0) } ?? (c.allDates ? ScanBound.all : nil)
        }
        // A cut-off from a whole-second date may be up to a second later: counted there too.
        let laterBounds = cutoffs.map { c in c.cutoff.flatMap { c.wholeSecondDate ? ScanBound.beforeDate($0 + 1) : nil }
        }
        let bounds = pendingBounds + perhapsBounds + cutoffBounds + laterBounds
        var everyone = AuthorTallies()
        var within = Array(repeating: AuthorTallies(), count: bounds.count)
        let positions = names.compactMap { name in
            located[name].flatMap { l in
                Breakage.Position(
                    name: name, kind: name == exporter ? .cloudKit : .app, tokenNumber: l.tokenNumber,
                    date: l.positionDate,
                    wholeSeconds: l.tolerance > 0)
            }
        }
        var breakages = cutoffs.map { Breakage(positions, onlyBy: $0.authorFilter.map(Set.init)) }
        var returns = Array(repeating: ReturnTally(), count: n)
        let authorNames = try store.read { db -> [String?] in
            var scan = try TransactionScan(store: store, db: db)
            try scan.run(db) { t in
                everyone.add(t)
                for i in bounds.indices where bounds[i]?.holds(t) == true {
                    within[i].add(t)
                    if i < n { returns[i].add(t.author) }
                }
                for j in cutoffBounds.indices where cutoffBounds[j]?.holds(t) == true { breakages[j].delete(t) }
            }
            return scan.authorNames
        }
        let authors = everyone.sorted(names: authorNames)
        var authored: [String: Int] = [:]
        for a in authors { if let name = a.author { authored[name] = a.tally.count } }
        let knownAuthors = authors.compactMap(\.author)
        // Authors without a position of their own are writers, summarized apart.
        let writers = authors.filter { a in a.author.map { !names.contains($0) } ?? true }.map { a in
            WriterSummary(
                author: a.author, transactions: a.tally.count,
                firstNumber: a.tally.firstNumber, lastNumber: a.tally.lastNumber,
                firstTimestamp: a.tally.firstTimestamp, lastTimestamp: a.tally.lastTimestamp)
        }

        // The numbers the store holds (a damaged table may not return them in order).
        let present = everyone.tallies.filter { $0.count > 0 }
        let history = present.first.map { f in
            present.reduce(f.firstNumber) {
                min($0, $1.firstNumber)
            }...present.reduce(f.lastNumber) { max($0, $1.lastNumber) }
        }
        // Lags are measured by the store's own time unless the user gave one or the store is live.
        let newest = present.compactMap(\.lastTimestamp).max()
        let clock = LagClock.of(nowIsGiven: nowIsGiven, isLive: store.isLive, newest: newest)
        let lagTo = clock == .newestTransaction ? newest ?? now : now
        var reports: [ActorReport] = []
        for (i, name) in names.enumerated() {
            let position = located[name] ?? Located()
            let kind: ActorKind = name == exporter ? .cloudKit : .app
            var pending =
                position.pendingFrom != nil
                ? Self.pending(
                    within[i].sorted(names: authorNames),
                    perhaps: perhapsBounds[i] == nil ? nil : within[n + i].sorted(names: authorNames),
                    isOwn: { ActorReport.isOwn($0, actor: name, kind: kind) })
                : PendingSummary(byAuthor: [], oldestTimestamp: nil, oldestNumber: nil)
            if kind == .app, let own = authorNames.firstIndex(of: name) {
                pending.ownAfterOthers = returns[i].returns[own] ?? 0
            }
            let lag = position.pendingFrom != nil ? pending.oldestTimestamp.map { max(0, lagTo - $0) } : nil
            let positionAge = position.effectiveDate.map { max(0, lagTo - $0) }
            // How far behind it is, as MergeStateReport.behind measures it.
            let behind = clock.behind(pending: pending.count, positionAge: positionAge, lag: lag)
            var report =
                kind == .cloudKit
                ? evaluateExporter(
                    position: position, pending: pending, lag: lag, behind: behind, clock: clock, history: history)
                : evaluate(
                    name, position: position, pending: pending, lag: lag, behind: behind, clock: clock,
                    authoredCount: authored[name] ?? 0,
                    knownAuthors: knownAuthors, purged: purged, first: first, history: history)
            report.positionAge = positionAge
            reports.append(report)
        }
        func count(_ c: CleanerCutoff, _ tallies: AuthorTallies) -> Int {
            let filter = c.authorFilter.map(Set.init)
            return zip(authorNames, tallies.tallies)
                .filter { author, _ in filter.map { f in author.map(f.contains) ?? false } ?? true }
                .reduce(0) { $0 + $1.1.count }
        }
        let cleaners = cutoffs.enumerated().map { j, c in
            CleanerEffect(
                cutoff: c, transactionsToDelete: c.purges ? count(c, within[2 * n + j]) : 0,
                transactionsToDeleteAtMost: laterBounds[j] == nil ? nil : count(c, within[2 * n + m + j]),
                breaks: c.purges ? breakages[j].consequences(reports, authorNames: authorNames) : [])
        }
        return MergeStateReport(
            storeUUID: store.storeUUID, now: now, lagClock: clock, lagTo: lagTo, newestTimestamp: newest,
            newestNumber: history?.upperBound, actors: reports, writers: writers, cleaners: cleaners)
    }

    /// What others wrote, from the tallies of the transactions after an actor's position;
    /// what the actor wrote itself is counted apart.
    /// `perhaps`: the tallies after a whole-second date itself, where what falls within the
    /// second after it may or may not be merged.
    private static func pending(
        _ tallies: [(author: String?, tally: AuthorTally)], perhaps: [(author: String?, tally: AuthorTally)]?,
        isOwn: (String?) -> Bool
    ) -> PendingSummary {
        let others = tallies.filter { !isOwn($0.author) }
        let count = others.reduce(0) { $0 + $1.tally.count }
        let perhapsCount = perhaps.map { $0.filter { !isOwn($0.author) }.reduce(0) { $0 + $1.tally.count } } ?? count
        return PendingSummary(
            byAuthor: others.map { (author: $0.author, count: $0.tally.count) },
            oldestTimestamp: others.compactMap(\.tally.firstTimestamp).min(),
            oldestNumber: others.map(\.tally.firstNumber).min(),
            ownCount: tallies.filter { isOwn($0.author) }.reduce(0) { $0 + $1.tally.count },
            uncertainCount: max(0, perhapsCount - count))
    }

    /// Unreadable first (it is the problem), then tokens, then dates.
    private static func rank(_ p: MergePosition) -> Int {
        switch p {
        case .unreadable: return 0
        case .token: return 1
        case .date: return 2
        }
    }

    /// An actor's recorded position looked up in the store, before anything is counted.
    private struct Located {
        /// Its recorded positions, the one evaluated first.
        var records: [MergeRecord] = []
        var record: MergeRecord? { records.first }
        /// The transaction its token names, for this store.
        var tokenNumber: Int64?
        /// Its token's transaction, or the last one at or before its date.
        var lastMerged: Transaction?
        var positionDate: Double?
        var tolerance: Double = 0
        /// Its pending transactions are those after this bound; nil: not counted.
        var pendingFrom: ScanBound?
        /// For a date kept in whole seconds: transactions after this bound may be pending too.
        var perhapsPendingFrom: ScanBound?
        /// The position used for cut-offs (as ``ActorReport/effectiveDate``).
        var effectiveDate: Double? { positionDate ?? (tokenNumber != nil ? lastMerged?.timestamp : nil) }
    }

    private func locate(_ name: String, records: [MergeRecord]) throws -> Located {
        var l = Located(records: records)
        guard let record = records.first else {
            // A declared actor without state will fetch everything.
            if declared.contains(name) && !batch.contains(name) { l.pendingFrom = .all }
            return l
        }
        switch record.position {
        case .unreadable:
            break
        case .token(let token):
            guard let n = token.transactionNumber(forStore: store.storeUUID) else { break }
            l.tokenNumber = n
            l.lastMerged = try store.transaction(number: n)
            l.pendingFrom = .afterNumber(n)
        case .date(let date, let wholeSeconds):
            l.positionDate = date
            // XML plists keep whole seconds.
            l.tolerance = wholeSeconds ? 1.0 : 0
            // What it surely merged; within the second after a whole-second date, it may have merged more.
            l.lastMerged = try store.lastTransaction(atOrBefore: date)
            l.pendingFrom = wholeSeconds ? .fromDate(date + 1) : .afterDate(date)
            l.perhapsPendingFrom = wholeSeconds ? .afterDate(date) : nil
        }
        return l
    }

    private func evaluate(
        _ name: String, position: Located, pending: PendingSummary, lag: Double?, behind: Double?, clock: LagClock,
        authoredCount: Int,
        knownAuthors: [String], purged: Bool, first: Transaction?, history: ClosedRange<Int64>?
    ) -> ActorReport {
        let isBatch = batch.contains(name)
        let isDeclared = declared.contains(name) || isBatch
        var r = ActorReport(
            name: name, kind: .app, status: .upToDate, isDeclared: isDeclared, isBatch: isBatch,
            records: position.records,
            authoredCount: authoredCount, lastMerged: position.lastMerged, tokenNumber: position.tokenNumber,
            positionDate: position.positionDate, pending: pending, lag: lag, explanation: "", advice: "")
        if authoredCount == 0 {
            r.similarAuthors = NameSuggestion.closest(
                to: name, among: knownAuthors.filter { AuthorFamily.of($0) == nil }
            )
            .map { ActorReport.SimilarAuthor(name: $0.name, distance: $0.distance) }
        }
        guard let record = position.record else {
            if isBatch {
                r.conclude(ActorVerdicts.batchActor(authored: authoredCount))
            } else if isDeclared {
                r.conclude(ActorVerdicts.declaredWithoutPosition(pending: r.pending.count))
            }
            return r
        }
        switch record.position {
        case .unreadable(let why):
            r.conclude(ActorVerdicts.unreadablePosition(why))
            return r
        case .token(let token):
            guard let n = position.tokenNumber else {
                r.conclude(ActorVerdicts.foreignToken(token, storeUUID: store.storeUUID))
                return r
            }
            guard position.lastMerged != nil else {
                if let later = laterThanSave(n, history: history) {
                    r.conclude(ActorVerdicts.tokenLaterThanSave(n, later: later))
                } else {
                    r.conclude(ActorVerdicts.expiredToken(missing: ActorVerdicts.missing(n, history: history)))
                }
                return r
            }
        case .date(let date, _):
            if purged, let first, let firstTS = first.timestamp, date + position.tolerance < firstTS {
                r.conclude(ActorVerdicts.missedChanges(oldest: first.number))
                return r
            }
            // A date means "merged what others wrote until then": the name must be the author it
            // writes with, or its own transactions count as pending. (A token needs no author.)
            if authoredCount == 0 && !isDeclared {
                r.conclude(
                    ActorVerdicts.unknownActor(name, similar: r.similarAuthors.map(\.name), pending: r.pending.count))
                return r
            }
        }
        // A whole-second date (an XML plist) cannot tell what within the second after it was merged.
        let uncertain = r.pending.uncertainCount
        r.conclude(
            r.pending.count == 0
                ? ActorVerdicts.upToDate(uncertain: uncertain)
                : ActorVerdicts.behind(r.pending, uncertain: uncertain, behind: behind, clock: clock))
        return r
    }
}

extension MergeStateAnalyzer {
    /// CloudKit's exporter: where its token stands, what it has still to export,
    /// and what a purge past it has done.
    private func evaluateExporter(
        position: Located, pending: PendingSummary, lag: Double?, behind: Double?, clock: LagClock,
        history: ClosedRange<Int64>?
    ) -> ActorReport {
        var r = ActorReport(
            name: MirroringState.exportActorName, kind: .cloudKit, status: .upToDate, isDeclared: false, isBatch: false,
            records: position.records, authoredCount: 0, lastMerged: position.lastMerged,
            tokenNumber: position.tokenNumber,
            positionDate: nil, pending: pending, lag: lag,
            explanation: "", advice: "", mirroredRecordCount: mirroring?.records?.mirrored)
        guard let record = position.record else {
            r.conclude(ActorVerdicts.exporterWithoutPosition(pending: pending.count))
            return r
        }
        guard case .token(let token) = record.position else {
            let why: String
            if case .unreadable(let problem) = record.position { why = problem } else { why = "it is not a token" }
            r.conclude(ActorVerdicts.exporterUnreadable(why, everyRecord: r.everyRecord))
            return r
        }
        guard let n = position.tokenNumber else {
            r.conclude(
                ActorVerdicts.exporterForeignToken(token, storeUUID: store.storeUUID, everyRecord: r.everyRecord))
            return r
        }
        guard position.lastMerged != nil else {
            if let later = laterThanSave(n, history: history) {
                r.conclude(ActorVerdicts.exporterLaterThanSave(n, later: later))
            } else {
                r.conclude(
                    ActorVerdicts.exporterExpired(
                        missing: ActorVerdicts.missing(n, history: history), everyRecord: r.everyRecord))
            }
            return r
        }
        if pending.count == 0 {
            r.conclude(ActorVerdicts.exporterUpToDate(pending))
        } else if let failed = mirroring?.failedLastExport {
            // Stuck, not merely behind: the newest export failed and none succeeded after it.
            r.conclude(ActorVerdicts.exporterFailing(pending, failed: failed))
        } else {
            r.conclude(ActorVerdicts.exporterBehind(pending, behind: behind, clock: clock))
        }
        return r
    }

    /// When the store is read as it was after a save and transaction `n` comes after everything
    /// it held then: a position of a later time than the one read, not a restored store.
    private func laterThanSave(_ n: Int64, history: ClosedRange<Int64>?) -> String? {
        guard let at = store.savePoint, n > (history?.upperBound ?? 0) else { return nil }
        return ActorVerdicts.laterThanSave(at, history: history)
    }
}

extension ActorReport {
    /// Whether `author` is the actor itself: the author named like it, or for
    /// CloudKit's exporter any of CloudKit's own authors.
    static func isOwn(_ author: String?, actor: String, kind: ActorKind) -> Bool {
        switch kind {
        case .app: return author == actor
        case .cloudKit: return AuthorFamily.of(author) == .cloudKit
        }
    }

    /// Whether `author` is this actor itself (see the static `isOwn(_:actor:kind:)`).
    public func isOwn(_ author: String?) -> Bool { Self.isOwn(author, actor: name, kind: kind) }

    /// Sets the status with its explanation and advice.
    mutating func conclude(_ verdict: ActorVerdict) {
        status = verdict.status
        explanation = verdict.explanation
        advice = verdict.advice
    }
}
