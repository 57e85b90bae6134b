import GRDB

extension HistoryStore {
    /// The delete bursts history records (``DeleteBurst``). With `endingAfter`, only the bursts
    /// that end after that transaction, looking back one window before the transaction after it
    /// (what a follower of new transactions asks).
    ///
    /// One scan of `ACHANGE`'s deletes (split over the cores), a lookup of each transaction of an
    /// entity with enough deletes to matter, and, for each burst, its entity's rows now and the
    /// inserts and deletes recorded after it.
    public func deleteBursts(_ limits: DeleteBurstLimits = DeleteBurstLimits(), endingAfter: Int64? = nil) throws -> [DeleteBurst] {
        try read { db in
            let from = try endingAfter.map { try firstTransaction(db, lookingBackFrom: $0 + 1, seconds: limits.window) }
            let counts = try deleteCounts(db, from: from ?? nil)
            var byEntity: [Int64: Int] = [:]
            for c in counts { byEntity[c.entity, default: 0] += c.deletes }
            let names = try TransactionFields(db, schema: schema)
            var events: [DeleteEvent] = []
            for c in counts where byEntity[c.entity, default: 0] >= limits.fewestDeletes {
                guard let tx = try names.transaction(c.transaction) else { continue }
                events.append(DeleteEvent(transaction: c.transaction, entity: c.entity, deletes: c.deletes, time: tx.time,
                                          author: tx.author, bundleID: tx.bundleID, processID: tx.processID))
            }
            var bursts: [DeleteBurst] = []
            for window in DeleteBurstSearch.windows(events, limits: limits) {
                guard let first = window.first, let last = window.last, let entity = catalog.entity(number: first.entity),
                      endingAfter.map({ window.map(\.transaction).max() ?? 0 > $0 }) ?? true else { continue }
                let lastNumber = window.map(\.transaction).max() ?? last.transaction
                let deleted = window.reduce(0) { $0 + $1.deletes }
                let before = try objectsBefore(db, entity: first.entity, deleted: deleted, after: lastNumber)
                guard before >= limits.minimumObjects, Double(deleted) > limits.share * Double(before) else { continue }
                bursts.append(DeleteBurst(entity: entity.name, author: first.author, bundleID: first.bundleID, processID: first.processID,
                                          deleted: deleted, objectsBefore: before, transactions: Set(window.map(\.transaction)).count,
                                          firstTransaction: window.map(\.transaction).min() ?? first.transaction, lastTransaction: lastNumber,
                                          first: window.compactMap(\.time).min(), last: window.compactMap(\.time).max()))
            }
            return bursts
        }
    }

    /// Deletes per transaction and entity, in change order.
    private func deleteCounts(_ db: Database, from: Int64?) throws -> [(transaction: Int64, entity: Int64, deletes: Int)] {
        func tally(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [(transaction: Int64, entity: Int64, deletes: Int)] {
            var runs: [(transaction: Int64, entity: Int64, deletes: Int)] = []
            var ignored: String?
            try db.forEachRow(sql, arguments: arguments) { row in
                guard let tx = row.integer(0, problem: &ignored), let entity = row.integer(1, problem: &ignored) else { return }
                if let last = runs.last, last.transaction == tx, last.entity == entity {
                    runs[runs.count - 1].deletes += 1
                } else {
                    runs.append((tx, entity, 1))
                }
            }
            return runs
        }
        let runs: [[(transaction: Int64, entity: Int64, deletes: Int)]]
        if let from {
            runs = [try tally(db, "SELECT ZTRANSACTIONID, ZENTITY FROM ACHANGE WHERE ZTRANSACTIONID >= ? AND ZCHANGETYPE = 2 ORDER BY ZTRANSACTIONID", [from])]
        } else {
            runs = try readInParts(of: "ACHANGE", db, parallelFrom: Self.parallelSummaryMinimum) { db, range in
                try tally(db, "SELECT ZTRANSACTIONID, ZENTITY FROM ACHANGE WHERE Z_PK BETWEEN ? AND ? AND ZCHANGETYPE = 2",
                          [range.lowerBound, range.upperBound])
            } ?? []
        }
        // A transaction's changes of one entity may come in several runs (entities interleaved).
        var merged: [Pair: Int] = [:]
        var order: [Pair] = []
        for run in runs.joined() {
            let key = Pair(transaction: run.transaction, entity: run.entity)
            if merged[key] == nil { order.append(key) }
            merged[key, default: 0] += run.deletes
        }
        return order.map { ($0.transaction, $0.entity, merged[$0] ?? 0) }
    }

    private struct Pair: Hashable {
        var transaction: Int64
        var entity: Int64
    }

    /// The first transaction at most `seconds` before transaction `number` (or `number` itself).
    private func firstTransaction(_ db: Database, lookingBackFrom number: Int64, seconds: Double) throws -> Int64 {
        var ignored: String?
        guard let time = try db.firstRow("SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK >= ? ORDER BY Z_PK LIMIT 1", arguments: [number], {
            $0.number(0, problem: &ignored)
        }) ?? nil else { return number }
        return try db.firstRow("SELECT MIN(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP >= ? AND ZTIMESTAMP < ''", arguments: [time - seconds]) {
            $0.isNull(0) ? number : min(number, $0.int64(0))
        } ?? number
    }

    /// Objects of entity `number` before `deleted` of them went: its rows now, plus its deletes
    /// recorded after transaction `after`, less its inserts recorded after it.
    private func objectsBefore(_ db: Database, entity number: Int64, deleted: Int, after: Int64) throws -> Int {
        var now = 0
        if let table = catalog.rootTableName(of: number), try !Self.columns(of: table, db).isEmpty {
            now = try db.firstRow("SELECT COUNT(*) FROM \(Self.quoted(table)) WHERE Z_ENT = ?", arguments: [number]) { Int($0.int64(0)) } ?? 0
        }
        var later = 0
        try db.forEachRow("SELECT ZCHANGETYPE, COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID > ? AND ZENTITY = ? AND ZCHANGETYPE IN (0, 2) GROUP BY 1",
                          arguments: [after, number]) { row in
            later += (row.int64(0) == 2 ? 1 : -1) * Int(row.int64(1))
        }
        return max(deleted, now + deleted + later)
    }
}

/// The time, author, bundle ID and process of transactions looked up one by one, names read
/// from the string table once.
private struct TransactionFields {
    struct Fields {
        var time: Double?
        var author: String?
        var bundleID: String?
        var processID: String?
    }

    private let statement: Statement
    private let strings: [Int64: String]
    private let fields: [TransactionField] = [.author, .bundleID, .processID]

    init(_ db: Database, schema: HistorySchema) throws {
        var strings: [Int64: String] = [:]
        if schema.hasStringTable {
            try db.forEachRow("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING") { row in
                if let name = row.optionalText(1) { strings[row.int64(0)] = name }
            }
        }
        self.strings = strings
        let columns = fields.flatMap { field in
            [schema.hasStringTable && schema.transactionColumns.contains(field.columns.reference) ? field.columns.reference : "NULL",
             schema.transactionColumns.contains(field.columns.inline) ? field.columns.inline : "NULL"]
        }
        statement = try db.makeStatement(sql: "SELECT ZTIMESTAMP, \(columns.joined(separator: ", ")) FROM ATRANSACTION WHERE Z_PK = ?")
    }

    func transaction(_ number: Int64) throws -> Fields? {
        let cursor = try RawCursor(statement, arguments: [number])
        defer { cursor.finish() }
        guard try cursor.next() else { return nil }
        var ignored: String?
        func name(_ i: Int32) -> String? {
            (cursor.isNull(i) ? nil : strings[cursor.int64(i)]) ?? cursor.optionalText(i + 1)
        }
        return Fields(time: cursor.number(0, problem: &ignored), author: name(1), bundleID: name(3), processID: name(5))
    }
}
