import GRDB

extension HistoryStore {
    /// The delete bursts history records (``DeleteBurst``): one pass over `ACHANGE`'s inserts and
    /// deletes, the deletes beside their transactions, grouped into runs as they come
    /// (``DeleteBurstDetector``); then, only when a run holds enough deletes, its entity's rows now.
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
    func newDeleteBursts(_ detector: inout DeleteBurstDetector, after: Int64, through: Int64) throws -> [DeleteBurst] {
        let found = try read { db -> [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] in
            try feedDeletes(&detector, db, range: (after, through))
            return try bursts(of: detector.takeClosed() + detector.openCandidates, detector, db)
        }
        for item in found { detector.markTold(item.run) }
        return found.map(\.burst)
    }

    /// Feeds every insert and delete (of transactions in `range`, when given) to `detector`, in
    /// change order; only a delete's transaction is read.
    private func feedDeletes(_ detector: inout DeleteBurstDetector, _ db: Database, range: (after: Int64, through: Int64)? = nil) throws {
        func columns(_ field: TransactionField) -> String {
            let reference = schema.hasStringTable && schema.transactionColumns.contains(field.columns.reference) ? "t.\(field.columns.reference)" : "NULL"
            let inline = schema.transactionColumns.contains(field.columns.inline) ? "t.\(field.columns.inline)" : "NULL"
            return "\(reference), \(inline)"
        }
        // LEFT JOIN: the changes are the outer loop, read in their table's order; an insert's
        // transaction is not read.
        let sql = """
            SELECT c.ZTRANSACTIONID, c.ZENTITY, t.ZTIMESTAMP, \(columns(.author)), \(columns(.bundleID)), \(columns(.processID)), c.ZCHANGETYPE, t.Z_PK
            FROM ACHANGE c LEFT JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID AND c.ZCHANGETYPE = 2
            WHERE c.ZCHANGETYPE IN (0, 2)\(range == nil ? "" : " AND c.ZTRANSACTIONID > ? AND c.ZTRANSACTIONID <= ?")
            """
        var ignored: String?
        try db.forEachRow(sql, arguments: range.map { [$0.after, $0.through] } ?? []) { row in
            guard let tx = row.integer(0, problem: &ignored), let entity = row.integer(1, problem: &ignored) else { return }
            guard row.int64(9) == 2 else { return detector.inserted(entity: entity) }
            // A delete whose transaction is gone (an orphan change) belongs to no writer.
            guard !row.isNull(10) else { return }
            func name(_ column: Int32) -> DeleteBurstDetector.Name {
                if let reference = row.integer(column, problem: &ignored) { return .reference(reference) }
                return row.optionalText(column + 1).map { .text($0) } ?? .none
            }
            let (author, bundleID, processID) = (name(3), name(5), name(7))
            let writer = author == .none ? DeleteBurstDetector.Writer(author: .none, bundleID: bundleID, processID: processID)
                                         : DeleteBurstDetector.Writer(author: author, bundleID: .none, processID: .none)
            detector.add(transaction: tx, entity: entity, time: row.number(2, problem: &ignored), writer: writer,
                         bundleID: bundleID, processID: processID)
        }
    }

    /// The runs of `runs` that are bursts: deleting, of the objects there were when the run began
    /// (the entity's rows now, plus its deletes since, less its inserts since), more than the
    /// share, not counting as many deletes as the run saw inserts (what was added and taken
    /// away again while it lasted: churn, not a wipe).
    private func bursts(of runs: [DeleteBurstDetector.Run], _ detector: DeleteBurstDetector, _ db: Database) throws
        -> [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] {
        var rowsNow: [Int64: Int] = [:]
        var names = StringNames()
        var found: [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] = []
        for run in runs {
            if rowsNow[run.entity] == nil {
                var rows = 0
                if let table = catalog.rootTableName(of: run.entity), try !Self.columns(of: table, db).isEmpty {
                    rows = try db.firstRow("SELECT COUNT(*) FROM \(Self.quoted(table)) WHERE Z_ENT = ?", arguments: [run.entity]) { Int($0.int64(0)) } ?? 0
                }
                rowsNow[run.entity] = rows
            }
            let since = detector.since(run)
            let before = max(run.deleted, (rowsNow[run.entity] ?? 0) + since.deletes - since.inserts)
            guard detector.limits.isBurst(deleted: run.deleted - since.insertsWithin, before: before),
                  let entity = catalog.entity(number: run.entity) else { continue }
            found.append((run, DeleteBurst(
                entity: entity.name, author: try names.text(run.writer.author, db), bundleID: try names.text(run.bundleID, db),
                processID: try names.text(run.processID, db), deleted: run.deleted, objectsBefore: before,
                transactions: run.transactions, firstTransaction: run.firstTransaction, lastTransaction: run.lastTransaction,
                first: run.first, last: run.last)))
        }
        return found
    }
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
            let text = try db.firstRow("SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = ?", arguments: [reference]) { $0.optionalText(0) } ?? nil
            read[reference] = text
            return text
        }
    }
}
