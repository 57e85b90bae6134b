/// Evaluates recorded merge positions against a store: for each actor, what
/// it merged, what is pending, and whether Core Data will fail or skip.
public struct MergeStateAnalyzer {
    /// Authors written by CloudKit mirroring (`NSCloudKitMirroringDelegate.import` …): writers, not actors.
    public static func isCloudKitAuthor(_ name: String) -> Bool {
        name.hasPrefix("NSCloudKitMirroringDelegate")
    }

    public let store: HistoryStore
    /// Actors the app declares (`--actor`).
    public var declared: [String]
    /// Actors that only write (`--batch-actor`).
    public var batch: [String]
    /// Positions found in defaults and token files.
    public var records: [MergeRecord]
    /// Cocoa seconds to evaluate at.
    public var now: Double

    public init(store: HistoryStore, declared: [String], batch: [String], records: [MergeRecord], now: Double) {
        self.store = store
        self.declared = declared
        self.batch = batch
        self.records = records
        self.now = now
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
        var located: [String: Located] = [:]
        for name in names {
            located[name] = try locate(name, records: records.filter { $0.actor == name }.sorted { Self.rank($0.position) < Self.rank($1.position) })
        }
        // The app's actors: declared or with recorded state. Batch actors are in the
        // delete's author filter but have no date of their own.
        let appActors = names.filter { declared.contains($0) || batch.contains($0) || !(located[$0]?.records ?? []).isEmpty }
        let actorDates = appActors.filter { !batch.contains($0) }.map { (actor: $0, date: located[$0]?.effectiveDate) }
        let cutoffs = CleanerStrategy.allCases.map { $0.cutoff(actorDates: actorDates, allActors: appActors, now: now) }

        // Every count comes from one pass through the transactions.
        let pendingBounds = names.map { located[$0]?.pendingFrom }
        let cutoffBounds = cutoffs.map { c in c.cutoff.map { ScanBound.beforeDate($0) } }
        let bounds = pendingBounds + cutoffBounds
        var everyone = AuthorTallies()
        var within = Array(repeating: AuthorTallies(), count: bounds.count)
        let authorNames = try store.read { db -> [String?] in
            var scan = try TransactionScan(store: store, db: db)
            try scan.run(db) { t in
                everyone.add(t)
                for i in bounds.indices where bounds[i]?.holds(t) == true { within[i].add(t) }
            }
            return scan.authorNames
        }
        let authors = everyone.sorted(names: authorNames)
        var authored: [String: Int] = [:]
        for a in authors { if let name = a.author { authored[name] = a.tally.count } }
        let knownAuthors = authors.compactMap(\.author)
        let actorCount = names.count
        knownAuthors.filter { !Self.isCloudKitAuthor($0) }.forEach(add)

        var reports: [ActorReport] = []
        for (i, name) in names.enumerated() {
            let position = located[name] ?? Located()
            let pending = i < actorCount && position.pendingFrom != nil
                ? Self.pending(within[i].sorted(names: authorNames), excluding: name) : PendingSummary(byAuthor: [], oldestTimestamp: nil, oldestNumber: nil)
            reports.append(evaluate(name, position: position, pending: pending, authoredCount: authored[name] ?? 0,
                                    knownAuthors: knownAuthors, purged: purged, first: first))
        }
        let counts = cutoffs.enumerated().map { j, c -> Int in
            guard c.cutoff != nil else { return 0 }
            let filter = c.authorFilter.map(Set.init)
            return zip(authorNames, within[actorCount + j].tallies)
                .filter { author, _ in filter.map { f in author.map(f.contains) ?? false } ?? true }
                .reduce(0) { $0 + $1.1.count }
        }
        return MergeStateReport(storeUUID: store.storeUUID, now: now, actors: reports, cutoffs: cutoffs, cutoffDeleteCounts: counts)
    }

    /// What others wrote, from the tallies of the transactions after an actor's position.
    private static func pending(_ tallies: [(author: String?, tally: AuthorTally)], excluding name: String) -> PendingSummary {
        let others = tallies.filter { $0.author != name }
        return PendingSummary(byAuthor: others.map { (author: $0.author, count: $0.tally.count) },
                              oldestTimestamp: others.compactMap(\.tally.firstTimestamp).min(),
                              oldestNumber: others.map(\.tally.firstNumber).min())
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
            l.lastMerged = try store.lastTransaction(atOrBefore: date, tolerance: l.tolerance)
            l.pendingFrom = .afterDate(date + l.tolerance)
        }
        return l
    }

    private func evaluate(_ name: String, position: Located, pending: PendingSummary, authoredCount: Int, knownAuthors: [String],
                          purged: Bool, first: Transaction?) -> ActorReport {
        let isBatch = batch.contains(name)
        let isDeclared = declared.contains(name) || isBatch
        var r = ActorReport(name: name, status: .upToDate, isDeclared: isDeclared, isBatch: isBatch,
                            records: position.records,
                            authoredCount: authoredCount, lastMerged: position.lastMerged, tokenNumber: position.tokenNumber,
                            positionDate: position.positionDate, pending: pending,
                            lag: position.pendingFrom != nil ? pending.oldestTimestamp.map { now - $0 } : nil,
                            explanation: "", advice: "")
        guard let record = position.record else {
            if isBatch {
                r.conclude(.writesOnly, "batch actor: writes history (\(authoredCount) transactions) and does not merge",
                           "nothing to do; it is left out of purge cut-offs")
            } else if isDeclared {
                r.conclude(.neverMerged, "has no recorded position: it has never merged, or its key was reset after a purge",
                           "it will fetch all \(r.pending.count) transactions by others on its next run; if this target no longer exists, remove it from the app's actor list so it stops holding back purges")
            } else {
                r.conclude(.unknownActor, "writes history (\(authoredCount) transactions) but has no merge state",
                           "if it only imports, declare it with --batch-actor; otherwise check the key it saves its position under (or pass --key-prefix)")
            }
            return r
        }
        switch record.position {
        case .unreadable(let why):
            r.conclude(.corruptToken, "its recorded position cannot be read: \(why)",
                       "delete this value so the app starts from scratch (it will refetch history); expect a full re-merge")
            return r
        case .token(let token):
            guard let n = position.tokenNumber else {
                r.status = .foreignToken
                r.explanation = "its token is for store \(token.transactionNumbers.keys.sorted().joined(separator: ", ")), not this store (\(store.storeUUID)): Core Data fails with error 134501"
                r.advice = "the store was replaced or restored: delete the saved token so the actor refetches from the start"
                return r
            }
            guard position.lastMerged != nil else {
                r.status = .expired
                let oldest = first.map { "the oldest remaining is #\($0.number)" } ?? "the store has no transactions"
                r.explanation = "its token names transaction #\(n), which no longer exists (\(oldest)): Core Data fails with error 134301 (history token expired)"
                r.advice = "reset its token (delete the saved token) so it refetches, and purge only before the oldest actor's position"
                return r
            }
        case .date(let date, _):
            if purged, let first, let firstTS = first.timestamp, date + position.tolerance < firstTS {
                r.status = .missedChanges
                r.explanation = "its last merge is older than the oldest remaining transaction (#\(first.number)): history it had not merged was purged, and Core Data skips it silently"
                r.advice = "rebuild this actor's state from the store (a full refetch), and make the cleaner purge only before the oldest actor's date"
                return r
            }
        }
        if authoredCount == 0 && !isDeclared {
            r.status = .unknownActor
            let close = knownAuthors.filter { $0.lowercased() == name.lowercased() || $0.lowercased().hasPrefix(name.lowercased()) || name.lowercased().hasPrefix($0.lowercased()) }
            let hint = close.isEmpty ? "authors in the store: \(knownAuthors.filter { !Self.isCloudKitAuthor($0) }.joined(separator: ", "))" : "did you mean \(close.joined(separator: ", "))?"
            r.explanation = "has merge state but no transaction has author '\(name)' (\(hint))"
            r.advice = "if it only reads, declare it with --actor; otherwise make it set transactionAuthor to the name it saves its position under"
            return r
        }
        if r.pending.count == 0 {
            r.conclude(.upToDate, "has merged everything others wrote",
                       "nothing to do")
        } else {
            r.status = .behind
            r.explanation = "has \(r.pending.count) transactions by others to merge"
            if let lag = r.lag, lag > CleanerStrategy.week {
                r.advice = "has not merged for \((lag / 86400).wholeDescription) days and holds back purges; if this target no longer runs, remove its key"
            } else {
                r.advice = "it merges them when it next runs; nothing to do"
            }
        }
        return r
    }
}

extension ActorReport {
    /// Sets the status with its explanation and advice.
    mutating func conclude(_ status: ActorStatus, _ explanation: String, _ advice: String) {
        self.status = status
        self.explanation = explanation
        self.advice = advice
    }
}
