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
                r.conclude(
                    .writesOnly,
                    "batch actor: writes history (\(plural(authoredCount, "transaction"))) and does not merge",
                    "nothing to do; it is left out of purge cut-offs")
            } else if isDeclared {
                r.conclude(
                    .neverMerged, "has no recorded position: it has never merged, or its key was reset after a purge",
                    """
                    it will fetch all \(plural(r.pending.count, "transaction")) by others on its next run; if \
                    this target no longer exists, remove it from the app's actor list so it stops holding back \
                    purges
                    """
                )
            }
            return r
        }
        switch record.position {
        case .unreadable(let why):
            r.conclude(
                .corruptToken, "its recorded position cannot be read: \(why)",
                "delete this value so the app starts from scratch (it will refetch history); expect a full re-merge")
            return r
        case .token(let token):
            guard let n = position.tokenNumber else {
                r.status = .foreignToken
                r.explanation =
                    """
                    its token is for store \(token.transactionNumbers.keys.sorted().joined(separator: ", ")), not \
                    this store (\(store.storeUUID)): Core Data fails with error 134501
                    """
                r.advice =
                    "the store was replaced or restored: delete the saved token so the actor refetches from the start"
                return r
            }
            guard position.lastMerged != nil else {
                if let later = laterThanSave(n, history: history) {
                    r.conclude(
                        .upToDate, "its token (transaction #\(n)) \(later)",
                        "nothing to do: judge its position against the store as it is, not as after a save")
                    return r
                }
                r.status = .expired
                r.explanation =
                    """
                    its token \(Self.missing(n, history: history)): Core Data fails with error 134301 (history \
                    token expired; in SwiftData, SwiftDataError.historyTokenExpired)
                    """
                r.advice =
                    """
                    reset its token (delete the saved token) so it refetches, and purge only before the oldest \
                    actor's position
                    """
                return r
            }
        case .date(let date, _):
            if purged, let first, let firstTS = first.timestamp, date + position.tolerance < firstTS {
                r.status = .missedChanges
                r.explanation =
                    """
                    its last merge is older than the oldest remaining transaction (#\(first.number)): history it \
                    had not merged was purged, and Core Data skips it silently
                    """
                r.advice =
                    """
                    rebuild this actor's state from the store (a full refetch), and make the cleaner purge only \
                    before the oldest actor's date
                    """
                return r
            }
            // A date means "merged what others wrote until then": the name must be the author it
            // writes with, or its own transactions count as pending. (A token needs no author.)
            if authoredCount == 0 && !isDeclared {
                r.status = .unknownActor
                let close = r.similarAuthors.map(\.name)
                let hint =
                    close.isEmpty
                    ? "no author has a name like it"
                    : """
                    did you mean \
                    \(close.prefix(3).joined(separator: ", "))\(close.count > 3 ? " or \(close.count - 3) more" : "")?
                    """
                r.explanation =
                    """
                    has merge state but no transaction has author '\(name)' (\(hint)); \
                    \(plural(r.pending.count, "transaction")) by others after its date
                    """
                r.advice =
                    """
                    if it only reads, declare it with \(Control.declareActor); otherwise make it set \
                    transactionAuthor to the name it saves its position under
                    """
                return r
            }
        }
        // A whole-second date (an XML plist) cannot tell what within the second after it was merged.
        let uncertain = r.pending.uncertainCount
        if r.pending.count == 0 {
            r.conclude(
                .upToDate,
                uncertain == 0
                    ? "has merged everything others wrote"
                    : """
                    has merged everything others wrote up to its date; its date is kept in whole seconds, so \
                    \(plural(uncertain, "transaction")) within the second after it may not be merged
                    """,
                "nothing to do")
        } else {
            r.status = .behind
            r.explanation =
                uncertain == 0
                ? "has \(plural(r.pending.count, "transaction")) by others to merge"
                : """
                has \(r.pending.count)–\(r.pending.count + uncertain) transactions by others to merge: its date \
                is kept in whole seconds, so \(uncertain) within the second after it may be merged already
                """
            if r.pending.ownAfterOthers > 0 {
                // It ran again, saved, and left its position where it was.
                r.explanation +=
                    """
                    ; it wrote \(plural(r.pending.ownCount, "transaction")) after its position, \
                    \(r.pending.ownAfterOthers) of them after others' it has not merged: it saves but does not \
                    merge, or does not store its position
                    """
                r.advice =
                    """
                    make it merge history each time it runs (fetch the transactions after its position, merge \
                    them, then store the new position), not only save
                    """
            } else if let behind, behind > CleanerInput.week {
                r.advice =
                    clock == .newestTransaction
                    ? """
                    \(clock.behind(behind)): it has not merged since, and holds back purges; if this target no \
                    longer runs, remove its key
                    """
                    : """
                    has not merged for \(days(behind / 86400)) and holds back purges; if this target no longer \
                    runs, remove its key
                    """
            } else {
                r.advice = "it merges them when it next runs; nothing to do"
            }
        }
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
        let own =
            pending.ownCount > 0
            ? " (and \(pending.ownCount) written by CloudKit itself, which it does not export)" : ""
        guard let record = position.record else {
            r.conclude(
                .neverMerged,
                """
                CloudKit mirroring keeps no export position in the store: it has not exported yet, or its state \
                was reset
                """,
                """
                on its next export it reads all remaining history (\(plural(pending.count, "transaction")) to \
                export); if the app has synced before, expect it to re-upload its data
                """
            )
            return r
        }
        guard case .token(let token) = record.position else {
            let why: String
            if case .unreadable(let problem) = record.position { why = problem } else { why = "it is not a token" }
            r.conclude(
                .corruptToken, "its export position cannot be read: \(why)",
                """
                if this store is a copy, copy it again with its -wal and -shm; otherwise CloudKit cannot resume \
                from it: expect the mirror to reset and re-upload \(r.everyRecord)
                """
            )
            return r
        }
        guard let n = position.tokenNumber else {
            r.conclude(
                .foreignToken,
                """
                its export token is for store \(token.transactionNumbers.keys.sorted().joined(separator: ", ")), \
                not this store (\(store.storeUUID)): the store was replaced or restored
                """,
                "CloudKit cannot resume from it: expect the mirror to reset and re-upload \(r.everyRecord)")
            return r
        }
        guard position.lastMerged != nil else {
            if let later = laterThanSave(n, history: history) {
                r.conclude(
                    .upToDate, "its export position (transaction #\(n)) \(later)",
                    "nothing to do: judge its position against the store as it is, not as after a save")
                return r
            }
            r.conclude(
                .expired,
                """
                its export position \(Self.missing(n, history: history)): on its next export the mirror finds its \
                token expired, resets (reason: history expired) and re-uploads \(r.everyRecord)
                """,
                """
                nothing in the store undoes it: let the reset run with a good network; from now on purge only \
                transactions CloudKit has exported, or do not purge a mirrored store
                """
            )
            return r
        }
        if pending.count == 0 {
            r.conclude(.upToDate, "has exported everything the app's authors wrote" + own, "nothing to do")
        } else if let failed = mirroring?.failedLastExport {
            // Stuck, not merely behind: the newest export failed and none succeeded after it.
            let when = failed.started.map { " (\(moment($0)))" } ?? ""
            r.conclude(
                .behind,
                "has \(plural(pending.count, "transaction")) to export\(own); its last export\(when) failed with "
                    + CloudKitErrorCode.text(domain: failed.errorDomain, code: failed.errorCode)
                    + " and none succeeded after it",
                """
                fix what the error names (\(Control.showCloudKit) shows the recent events); the mirror exports \
                them once an export succeeds
                """
            )
        } else {
            r.conclude(
                .behind, "has \(plural(pending.count, "transaction")) to export\(own)",
                behind.map { $0 > 86400 } == true
                    ? (clock == .newestTransaction
                        ? """
                        \(clock.behind(behind ?? 0)): it has not exported since; check the device's iCloud \
                        account and the mirror's recent events
                        """
                        : """
                        it has not exported for \(days((behind ?? 0) / 86400)): check the device's iCloud account \
                        and the mirror's recent events
                        """)
                    : "it exports them when the app next runs with a network and an iCloud account; nothing to do")
        }
        return r
    }

    /// When the store is read as it was after a save and transaction `n` comes after everything
    /// it held then: a position of a later time than the one read, not a restored store.
    private func laterThanSave(_ n: Int64, history: ClosedRange<Int64>?) -> String? {
        guard let at = store.savePoint, n > (history?.upperBound ?? 0) else { return nil }
        return
            """
            is later than the newest transaction at save \(at.save) of \(at.of) \
            (\(history.map { "#\($0.upperBound)" } ?? "none")), 
            """
                + """
                as which the store is read: the merge state is of a later time, and had merged everything the store \
                held then
                """
    }

    /// Why transaction `n`, which a token names, is not in the store: purged, never
    /// there (beyond the newest: an older copy of the store), or a gap.
    static func missing(_ n: Int64, history: ClosedRange<Int64>?) -> String {
        guard let history else { return "(transaction #\(n)) is gone: the store has no transactions" }
        if n > history.upperBound {
            return
                """
                (transaction #\(n)) is beyond the newest transaction (#\(history.upperBound)): the store was \
                restored from an older copy or replaced
                """
        }
        if n < history.lowerBound {
            return "(transaction #\(n)) was purged (the oldest remaining is #\(history.lowerBound))"
        }
        return "(transaction #\(n)) is gone from the middle of the history"
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
    mutating func conclude(_ status: ActorStatus, _ explanation: String, _ advice: Message) {
        self.status = status
        self.explanation = explanation
        self.advice = advice
    }
}
