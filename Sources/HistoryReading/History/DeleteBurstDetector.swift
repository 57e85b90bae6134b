/// Groups a stream of deletes, in transaction order, into runs: per entity and writer (its
/// author, or its bundle ID and process when it has none), deletes each at most the window after
/// the one before form one run. Keeps one open run per entity and writer, the closed runs that
/// hold enough deletes to be a burst, and per entity how many inserts and deletes went by (told
/// by the same stream), so that a run knows what came after it began: memory does not grow with
/// the deletes.
package struct DeleteBurstDetector {
    /// A name as a transaction holds it: a string-table reference, inline text, or none.
    enum Name: Hashable {
        case reference(Int64)
        case text(String)
        case none
    }

    /// Who wrote a delete, as runs group it.
    struct Writer: Hashable {
        var author: Name
        /// The bundle ID and process, kept apart only when there is no author.
        var bundleID: Name
        var processID: Name
    }

    struct Run {
        var entity: Int64
        var writer: Writer
        /// The first delete's bundle ID and process, to name the writer.
        var bundleID: Name
        var processID: Name
        var firstTransaction: Int64
        var lastTransaction: Int64
        var first: Double?
        var last: Double?
        var deleted = 1
        var transactions = 1
        /// The entity's inserts and deletes seen before the run began, and its inserts by the
        /// run's last delete.
        var insertsAtStart: Int
        var deletesAtStart: Int
        var insertsAtEnd: Int
        /// Told already, while open (a follower tells a run once).
        var told = false
    }

    private struct Key: Hashable {
        var entity: Int64
        var writer: Writer
    }

    let limits: DeleteBurstLimits
    private var open: [Key: Run] = [:]
    /// Inserts and deletes seen so far, per entity.
    private var inserts: [Int64: Int] = [:]
    private var deletes: [Int64: Int] = [:]
    /// Closed runs with enough deletes, in the order they closed.
    private(set) var candidates: [Run] = []

    package init(limits: DeleteBurstLimits) {
        self.limits = limits
    }

    /// One deleted object of `entity` in `transaction`.
    mutating func add(transaction: Int64, entity: Int64, time: Double?, writer: Writer, bundleID: Name, processID: Name)
    {
        defer { deletes[entity, default: 0] += 1 }
        let key = Key(entity: entity, writer: writer)
        if var run = open[key] {
            if run.lastTransaction == transaction {
                run.deleted += 1
                run.insertsAtEnd = inserts[entity, default: 0]
                open[key] = run
                return
            }
            // A delete without a time, or one after the window, starts a run of its own.
            if let last = run.last, let time, time - last <= limits.window {
                run.deleted += 1
                run.transactions += 1
                run.lastTransaction = transaction
                run.last = max(last, time)
                run.insertsAtEnd = inserts[entity, default: 0]
                open[key] = run
                return
            }
            close(run)
        }
        let inserted = inserts[entity, default: 0]
        open[key] = Run(
            entity: entity, writer: writer, bundleID: bundleID, processID: processID,
            firstTransaction: transaction, lastTransaction: transaction, first: time, last: time,
            insertsAtStart: inserted, deletesAtStart: deletes[entity, default: 0], insertsAtEnd: inserted)
    }

    /// One inserted object of `entity`.
    mutating func inserted(entity: Int64) {
        inserts[entity, default: 0] += 1
    }

    /// What `run`'s entity saw from the run's first delete on: deletes and inserts to this point,
    /// and the inserts while the run lasted.
    func since(_ run: Run) -> (deletes: Int, inserts: Int, insertsWithin: Int) {
        (
            deletes[run.entity, default: 0] - run.deletesAtStart, inserts[run.entity, default: 0] - run.insertsAtStart,
            run.insertsAtEnd - run.insertsAtStart
        )
    }

    /// The closed runs with enough deletes (not told), in order of their first transaction;
    /// forgets them.
    mutating func takeClosed() -> [Run] {
        defer { candidates = [] }
        return candidates.sorted { ($0.firstTransaction, $0.entity) < ($1.firstTransaction, $1.entity) }
    }

    /// The open runs holding enough deletes, not told yet.
    var openCandidates: [Run] {
        open.values.filter { $0.deleted >= limits.fewestDeletes && !$0.told }.sorted {
            ($0.firstTransaction, $0.entity) < ($1.firstTransaction, $1.entity)
        }
    }

    /// Marks `run`, while it is open, as told.
    mutating func markTold(_ run: Run) {
        open[Key(entity: run.entity, writer: run.writer)]?.told = true
    }

    /// Closes every open run and takes the candidates.
    mutating func finish() -> [Run] {
        for run in open.values { close(run) }
        open = [:]
        return takeClosed()
    }

    private mutating func close(_ run: Run) {
        if run.deleted >= limits.fewestDeletes && !run.told { candidates.append(run) }
    }
}
