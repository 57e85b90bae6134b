import GRDB

extension HistoryStore {
    /// The delete bursts history records (``DeleteBurst``): one pass over `ACHANGE`'s deletes
    /// beside their transactions, grouped into runs as they come (``DeleteBurstDetector``); then,
    /// only when a run holds enough deletes, its entity's rows now and one pass over the inserts
    /// and deletes of those entities since the run began.
    public func deleteBursts(_ limits: DeleteBurstLimits = DeleteBurstLimits()) throws -> [DeleteBurst] {
        try read { db in
            var detector = DeleteBurstDetector(limits: limits)
            try feedDeletes(&detector, db)
            return try bursts(of: detector.finish(), limits: limits, db).map(\.burst)
        }
    }

    /// The bursts the deletes of transactions `after`+1 through `through` complete, each told
    /// once: `detector` keeps the runs from one call to the next (a follower of new transactions).
    func newDeleteBursts(_ detector: inout DeleteBurstDetector, after: Int64, through: Int64) throws -> [DeleteBurst] {
        let found = try read { db -> [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] in
            try feedDeletes(&detector, db, range: (after, through))
            return try bursts(of: detector.takeClosed() + detector.openCandidates, limits: detector.limits, db)
        }
        for item in found { detector.markTold(item.run) }
        return found.map(\.burst)
    }

    /// Feeds every delete (of transactions in `range`, when given) to `detector`, in change order.
    private func feedDeletes(_ detector: inout DeleteBurstDetector, _ db: Database, range: (after: Int64, through: Int64)? = nil) throws {
        func columns(_ field: TransactionField) -> String {
            let reference = schema.hasStringTable && schema.transactionColumns.contains(field.columns.reference) ? "t.\(field.columns.reference)" : "NULL"
            let inline = schema.transactionColumns.contains(field.columns.inline) ? "t.\(field.columns.inline)" : "NULL"
            return "\(reference), \(inline)"
        }
        // CROSS JOIN: the changes are the outer loop, read in their table's order.
        let sql = """
            SELECT c.ZTRANSACTIONID, c.ZENTITY, t.ZTIMESTAMP, \(columns(.author)), \(columns(.bundleID)), \(columns(.processID))
            FROM ACHANGE c CROSS JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID
            WHERE c.ZCHANGETYPE = 2\(range == nil ? "" : " AND c.ZTRANSACTIONID > ? AND c.ZTRANSACTIONID <= ?")
            """
        var ignored: String?
        try db.forEachRow(sql, arguments: range.map { [$0.after, $0.through] } ?? []) { row in
            guard let tx = row.integer(0, problem: &ignored), let entity = row.integer(1, problem: &ignored) else { return }
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

    /// The runs of `runs` that are bursts: deleting more than the share of the objects there were
    /// (the entity's rows now, plus its deletes since the run began, less its inserts since).
    private func bursts(of runs: [DeleteBurstDetector.Run], limits: DeleteBurstLimits, _ db: Database) throws
        -> [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] {
        guard let earliest = runs.map(\.firstTransaction).min() else { return [] }
        let entities = Set(runs.map(\.entity))
        var rowsNow: [Int64: Int] = [:]
        for entity in entities {
            guard let table = catalog.rootTableName(of: entity), try !Self.columns(of: table, db).isEmpty else { continue }
            rowsNow[entity] = try db.firstRow("SELECT COUNT(*) FROM \(Self.quoted(table)) WHERE Z_ENT = ?", arguments: [entity]) { Int($0.int64(0)) }
        }
        var since = [Int](repeating: 0, count: runs.count)
        let byEntity = Dictionary(grouping: runs.indices, by: { runs[$0].entity })
        try db.forEachRow("""
            SELECT ZTRANSACTIONID, ZENTITY, ZCHANGETYPE FROM ACHANGE
            WHERE ZTRANSACTIONID >= ? AND ZCHANGETYPE IN (0, 2) AND ZENTITY IN (\(entities.sorted().map(String.init).joined(separator: ", ")))
            """, arguments: [earliest]) { row in
            let (tx, entity) = (row.int64(0), row.int64(1))
            for i in byEntity[entity] ?? [] where tx >= runs[i].firstTransaction {
                since[i] += row.int64(2) == 2 ? 1 : -1
            }
        }
        var names = StringNames()
        var found: [(run: DeleteBurstDetector.Run, burst: DeleteBurst)] = []
        for (i, run) in runs.enumerated() {
            let before = max(run.deleted, (rowsNow[run.entity] ?? 0) + since[i])
            guard limits.isBurst(deleted: run.deleted, before: before), let entity = catalog.entity(number: run.entity) else { continue }
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
