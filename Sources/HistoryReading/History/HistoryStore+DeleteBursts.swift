import GRDB

extension HistoryStore {
    /// The delete bursts history records (``DeleteBurst``): one pass over `ACHANGE`'s inserts and
    /// deletes, the deletes beside their transactions, grouped into runs as they come
    /// (`DeleteBurstDetector`); then, only when a run holds enough deletes, its entity's rows now.
    public func deleteBursts(_ limits: DeleteBurstLimits = DeleteBurstLimits()) throws -> [DeleteBurst] {
        try read { db in
            var detector = DeleteBurstDetector(limits: limits)
            try feedDeletes(&detector, db)
            let runs = detector.finish()
            return try bursts(of: runs, detector, db).map(\.burst)
        }
    }

    /// The bursts the deletes of transactions `after`+1 through `through` complete, each told
    /// once: `detector` keeps the runs from one call to the next (a follower of new transactions).
    package func newDeleteBursts(_ detector: inout DeleteBurstDetector, after: Int64, through: Int64) throws
        -> [DeleteBurst]
    {
        let found = try read { db -> [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] in
            try feedDeletes(&detector, db, range: (after, through))
            return try bursts(of: detector.takeClosed() + detector.openCandidates, detector, db)
        }
        for item in found { detector.markTold(item.run) }
        return found.map(\.burst)
    }

    /// Feeds every insert and delete (of transactions in `range`, when given) to `detector`, in
    /// change order. A delete's transaction is read by a walk down `ATRANSACTION` beside the
    /// changes (they come in transaction order), a lookup only for one out of order.
    private func feedDeletes(
        _ detector: inout DeleteBurstDetector, _ db: Database, range: (after: Int64, through: Int64)? = nil
    ) throws {
        let bounds = range == nil ? "" : " AND ZTRANSACTIONID > ? AND ZTRANSACTIONID <= ?"
        let arguments: StatementArguments = range.map { [$0.after, $0.through] } ?? []
        let transactions = try TransactionWriters(db, schema: schema, through: range?.through ?? Int64.max)
        defer { transactions.finish() }
        var ignored: String?
        try db.forEachRow(
            "SELECT ZTRANSACTIONID, ZENTITY, ZCHANGETYPE FROM ACHANGE WHERE ZCHANGETYPE IN (0, 2)" + bounds,
            arguments: arguments
        ) { row in
            guard let tx = row.integer(0, problem: &ignored), let entity = row.integer(1, problem: &ignored) else {
                return
            }
            guard row.int64(2) == 2 else { return detector.inserted(entity: entity) }
            // A delete whose transaction is gone (an orphan change) belongs to no writer.
            guard let t = try transactions.writer(of: tx) else { return }
            detector.add(
                transaction: tx, entity: entity, time: t.time, writer: t.writer, bundleID: t.bundleID,
                processID: t.processID)
        }
    }

    /// The runs of `runs` that are bursts: deleting, of the objects there were when the run began
    /// (the entity's rows now, plus its deletes since, less its inserts since), more than the
    /// share, not counting as many deletes as the run saw inserts (what was added and taken
    /// away again while it lasted: churn, not a wipe).
    private func bursts(of runs: [DeleteBurstDetector.Run], _ detector: DeleteBurstDetector, _ db: Database) throws
        -> [(run: DeleteBurstDetector.Run, burst: DeleteBurst)]
    {
        var rowsNow: [Int64: Int] = [:]
        var names = StringNames()
        var found: [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] = []
        for run in runs {
            if rowsNow[run.entity] == nil {
                var rows = 0
                if let table = catalog.rootTableName(of: run.entity), try !Self.columns(of: table, db).isEmpty {
                    rows =
                        try db.firstRow(
                            "SELECT COUNT(*) FROM \(Self.quoted(table)) WHERE Z_ENT = ?", arguments: [run.entity]
                        ) { Int($0.int64(0)) } ?? 0
                }
                rowsNow[run.entity] = rows
            }
            let since = detector.since(run)
            let before = max(run.deleted, (rowsNow[run.entity] ?? 0) + since.deletes - since.inserts)
            guard detector.limits.isBurst(deleted: run.deleted - since.insertsWithin, before: before),
                let entity = catalog.entity(number: run.entity)
            else { continue }
            found.append(
                (
                    run,
                    DeleteBurst(
                        entity: entity.name, author: try names.text(run.writer.author, db),
                        bundleID: try names.text(run.bundleID, db),
                        processID: try names.text(run.processID, db), deleted: run.deleted, objectsBefore: before,
                        transactions: run.transactions, firstTransaction: run.firstTransaction,
                        lastTransaction: run.lastTransaction,
                        first: run.first, last: run.last)
                ))
        }
        return found
    }
}

/// The time and writer of transactions asked for in ascending order: read by one walk down
/// `ATRANSACTION`, the last one kept; one asked for out of order is looked up.
private final class TransactionWriters {
    struct Found {
        var time: Double?
        var writer: DeleteBurstDetector.Writer
        var bundleID: DeleteBurstDetector.Name
        var processID: DeleteBurstDetector.Name
    }

    /// The walk, from the first transaction asked for (and again from one far ahead).
    private var walk: RawCursor?
    private let walkStatement: Statement
    private let lookup: Statement
    private let through: Int64
    /// Transactions stepped over at most before the walk seeks instead.
    private static let stepLimit: Int64 = 64
    private var current: (number: Int64, found: Found)?
    private var done = false

    /// Transactions up to `through` are walked.
    init(_ db: Database, schema: HistorySchema, through: Int64) throws {
        let columns = [TransactionField.author, .bundleID, .processID].map { field -> String in
            let reference =
                schema.hasStringTable && schema.transactionColumns.contains(field.columns.reference)
                ? field.columns.reference : "NULL"
            let inline = schema.transactionColumns.contains(field.columns.inline) ? field.columns.inline : "NULL"
            return "\(reference), \(inline)"
        }.joined(separator: ", ")
        let select = "SELECT Z_PK, ZTIMESTAMP, \(columns) FROM ATRANSACTION"
        self.through = through
        walkStatement = try db.makeStatement(sql: select + " WHERE Z_PK >= ? AND Z_PK <= ? ORDER BY Z_PK")
        lookup = try db.makeStatement(sql: select + " WHERE Z_PK = ?")
    }

    /// Transaction `number`'s time and writer; nil when there is no such transaction.
    func writer(of number: Int64) throws -> Found? {
        if let current, current.number == number { return current.found }
        if let current, current.number > number || done { return try lookUp(number) }
        // The first, or one far ahead: seek there rather than step over every transaction between.
        if walk == nil || current.map({ number - $0.number > Self.stepLimit }) ?? true {
            walk?.finish()
            walk = try RawCursor(walkStatement, arguments: [number, through])
            done = false
        }
        while !done, let walk {
            guard try walk.next() else {
                done = true
                break
            }
            let n = walk.int64(0)
            if n == number {
                let found = Self.found(walk)
                current = (n, found)
                return found
            }
            if n > number {
                current = (n, Self.found(walk))
                return try lookUp(number)
            }
        }
        return try lookUp(number)
    }

    private func lookUp(_ number: Int64) throws -> Found? {
        let cursor = try RawCursor(lookup, arguments: [number])
        defer { cursor.finish() }
        return try cursor.next() ? Self.found(cursor) : nil
    }

    private static func found(_ row: RawCursor) -> Found {
        var ignored: String?
        func name(_ column: Int32) -> DeleteBurstDetector.Name {
            if let reference = row.integer(column, problem: &ignored) { return .reference(reference) }
            return row.optionalText(column + 1).map { .text($0) } ?? .none
        }
        let (author, bundleID, processID) = (name(2), name(4), name(6))
        let writer =
            author == .none
            ? DeleteBurstDetector.Writer(author: .none, bundleID: bundleID, processID: processID)
            : DeleteBurstDetector.Writer(author: author, bundleID: .none, processID: .none)
        return Found(time: row.number(1, problem: &ignored), writer: writer, bundleID: bundleID, processID: processID)
    }

    func finish() { walk?.finish() }
}

/// The texts of string-table references, each read once.
private struct StringNames {
    private var read: [Int64: String?] = [:]

    mutating func text(_ name: DeleteBurstDetector.Name, _ db: Database) throws -> String? {
        switch name {
        case .none: return nil
        case .text(let text): return text
        case .reference(let reference):
            if let known = read[reference] { return known }
            let text = try db.firstRow(HistorySQL.nameLookup, arguments: [reference]) { $0.optionalText(0) } ?? nil
            read[reference] = text
            return text
        }
    }
}
