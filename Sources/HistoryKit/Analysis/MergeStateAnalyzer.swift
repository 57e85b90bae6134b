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
        let authors = try store.fieldSummaries(.author, countingChanges: false)
        var authored: [String: Int] = [:]
        for a in authors { if let v = a.value { authored[v] = a.transactionCount } }
        let first = try store.firstTransaction()
        // History was purged from the start when the oldest transaction is not #1.
        let purged = (first?.number ?? 1) > 1

        var names: [String] = []
        func add(_ n: String) { if !names.contains(n) { names.append(n) } }
        declared.forEach(add)
        batch.forEach(add)
        records.map(\.actor).forEach(add)
        authors.compactMap(\.value).filter { !Self.isCloudKitAuthor($0) }.forEach(add)

        var reports: [ActorReport] = []
        for name in names {
            let own = records.filter { $0.actor == name }
                .sorted { Self.rank($0.position) < Self.rank($1.position) }
            reports.append(try evaluate(name, records: own, authoredCount: authored[name] ?? 0,
                                        knownAuthors: authors.compactMap(\.value), purged: purged, first: first))
        }
        // The app's actors: declared or with recorded state. Batch actors are in the
        // delete's author filter but have no date of their own.
        let appActors = reports.filter { $0.isDeclared || !$0.records.isEmpty }
        let actorDates = appActors.filter { !$0.isBatch }.map { (actor: $0.name, date: $0.effectiveDate) }
        let allActors = appActors.map(\.name)
        let cutoffs = CleanerStrategy.allCases.map { $0.cutoff(actorDates: actorDates, allActors: allActors, now: now) }
        let counts = try cutoffs.map { c -> Int in
            guard let date = c.cutoff else { return 0 }
            return try store.countTransactions(HistoryQuery(before: .date(date), authors: (c.authorFilter ?? []).map { .value($0) }))
        }
        return MergeStateReport(storeUUID: store.storeUUID, now: now, actors: reports, cutoffs: cutoffs, cutoffDeleteCounts: counts)
    }

    /// Unreadable first (it is the problem), then tokens, then dates.
    private static func rank(_ p: MergePosition) -> Int {
        switch p {
        case .unreadable: return 0
        case .token: return 1
        case .date: return 2
        }
    }

    private func evaluate(_ name: String, records: [MergeRecord], authoredCount: Int, knownAuthors: [String],
                          purged: Bool, first: Transaction?) throws -> ActorReport {
        let isBatch = batch.contains(name)
        let isDeclared = declared.contains(name) || isBatch
        var r = ActorReport(name: name, status: .upToDate, isDeclared: isDeclared, isBatch: isBatch, records: records,
                            authoredCount: authoredCount, lastMerged: nil, tokenNumber: nil, positionDate: nil,
                            pending: PendingSummary(byAuthor: [], oldestTimestamp: nil, oldestNumber: nil),
                            lag: nil, explanation: "", advice: "")
        /// What others wrote after `position`, and how old the oldest of it is.
        func loadPending(after position: HistoryQuery.Bound?) throws {
            r.pending = try store.pending(after: position, excludingAuthor: name)
            r.lag = r.pending.oldestTimestamp.map { now - $0 }
        }
        guard let record = records.first else {
            if isBatch {
                r.conclude(.writesOnly, "batch actor: writes history (\(authoredCount) transactions) and does not merge",
                           "nothing to do; it is left out of purge cut-offs")
            } else if isDeclared {
                try loadPending(after: nil)
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
            guard let n = token.transactionNumber(forStore: store.storeUUID) else {
                r.status = .foreignToken
                r.explanation = "its token is for store \(token.transactionNumbers.keys.sorted().joined(separator: ", ")), not this store (\(store.storeUUID)): Core Data fails with error 134501"
                r.advice = "the store was replaced or restored: delete the saved token so the actor refetches from the start"
                return r
            }
            r.tokenNumber = n
            guard let tx = try store.transaction(number: n) else {
                r.status = .expired
                let oldest = first.map { "the oldest remaining is #\($0.number)" } ?? "the store has no transactions"
                r.explanation = "its token names transaction #\(n), which no longer exists (\(oldest)): Core Data fails with error 134301 (history token expired)"
                r.advice = "reset its token (delete the saved token) so it refetches, and purge only before the oldest actor's position"
                try loadPending(after: .transaction(n))
                return r
            }
            r.lastMerged = tx
            try loadPending(after: .transaction(n))
        case .date(let date, let wholeSeconds):
            r.positionDate = date
            let tolerance = wholeSeconds ? 1.0 : 0
            r.lastMerged = try store.lastTransaction(atOrBefore: date, tolerance: tolerance)
            try loadPending(after: .date(date + tolerance))
            if purged, let first, let firstTS = first.timestamp, date + tolerance < firstTS {
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
                r.advice = "has not merged for \(Int(lag / 86400)) days and holds back purges; if this target no longer runs, remove its key"
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
