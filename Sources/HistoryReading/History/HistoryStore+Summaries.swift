import GRDB

/// A string field of a transaction.
public enum TransactionField: String, CaseIterable, Sendable {
    case author, contextName, bundleID, processID

    /// The field as a sentence names one of its values: `author`, `context name`, `bundle ID`, `process`.
    public var noun: String {
        switch self {
        case .author: return "author"
        case .contextName: return "context name"
        case .bundleID: return "bundle ID"
        case .processID: return "process"
        }
    }

    /// The same, of several values: `authors`, `context names`, `bundle IDs`, `processes`.
    public var pluralNoun: String { self == .processID ? "processes" : noun + "s" }

    /// The `ATRANSACTION` column referring to `ATRANSACTIONSTRING`, and the column older
    /// stores keep the text in.
    var columns: (reference: String, inline: String) {
        switch self {
        case .author: return ("ZAUTHORTS", "ZAUTHOR")
        case .contextName: return ("ZCONTEXTNAMETS", "ZCONTEXTNAME")
        case .bundleID: return ("ZBUNDLEIDTS", "ZBUNDLEID")
        case .processID: return ("ZPROCESSIDTS", "ZPROCESSID")
        }
    }
}

/// How often one value of a transaction field occurs.
public struct FieldSummary: Equatable, Sendable {
    /// The value; nil for transactions where the field is NULL.
    public var value: String?
    public var transactionCount: Int
    public var changeCount: Int
    /// Earliest and latest `ZTIMESTAMP` (Cocoa seconds) of its transactions.
    public var firstTimestamp: Double?
    public var lastTimestamp: Double?
    /// Lowest and highest transaction numbers.
    public var firstTransaction: Int64
    public var lastTransaction: Int64
}

/// Change counts of one entity, by type.
public struct EntityChangeCounts: Equatable, Sendable {
    public var inserts = 0
    public var updates = 0
    public var deletes = 0
    /// Changes of another `ZCHANGETYPE`.
    public var other = 0

    /// No changes yet.
    public init() {}

    /// All changes of the entity.
    public var total: Int { inserts + updates + deletes + other }

    /// Both counts together.
    func adding(_ other: EntityChangeCounts) -> EntityChangeCounts {
        var sum = self
        sum.inserts += other.inserts
        sum.updates += other.updates
        sum.deletes += other.deletes
        sum.other += other.other
        return sum
    }

    mutating func add(_ type: ChangeType, count: Int) {
        switch type {
        case .insert: inserts += count
        case .update: updates += count
        case .delete: deletes += count
        case .unknown: other += count
        }
    }
}

extension HistoryStore {
    /// Each distinct value of `field` with its transaction and change counts and time range,
    /// most transactions first. Counting changes visits every change; without
    /// `countingChanges` their count is 0 and only transactions are read.
    public func fieldSummaries(_ field: TransactionField, countingChanges: Bool = true) throws -> [FieldSummary] {
        try fieldSummaries([field], countingChanges: countingChanges)[field] ?? []
    }

    /// ``fieldSummaries(_:countingChanges:)`` of several fields from one pass, split over the
    /// cores by transaction number: in each part the transactions in number order, their change
    /// counts from `ACHANGE`'s index on `ZTRANSACTIONID` read beside them in the same order, and
    /// the tallies kept by string reference (an integer), named once at the end. The value of a
    /// field is its `ATRANSACTIONSTRING` name, else the text in the inline column; a BLOB is no
    /// name, as the transaction readers read it.
    public func fieldSummaries(_ fields: [TransactionField], countingChanges: Bool = true) throws -> [TransactionField:
        [FieldSummary]]
    {
        try fieldSummaries(fields, countingChanges: countingChanges, parallelFrom: Self.parallelSummaryMinimum)
    }

    /// The same, split over the cores when the transaction numbers span at least `parallelFrom`.
    func fieldSummaries(_ fields: [TransactionField], countingChanges: Bool, parallelFrom: Int64) throws
        -> [TransactionField: [FieldSummary]]
    {
        let columns = fields.map { field -> String in
            let (reference, inline) = field.columns
            let hasReference = schema.hasStringTable && schema.transactionColumns.contains(reference)
            return (hasReference ? "t.\(reference)" : "NULL") + ", "
                + (schema.transactionColumns.contains(inline) ? "t.\(inline)" : "NULL")
        }
        let select =
            "SELECT t.Z_PK, t.ZTIMESTAMP, " + columns.joined(separator: ", ")
            + " FROM ATRANSACTION t WHERE t.Z_PK BETWEEN ? AND ? ORDER BY t.Z_PK"
        let fieldCount = fields.count
        return try read { db in
            let names = schema.hasStringTable ? try stringNames(db) : [:]
            var tallies = [[FieldKey: FieldTally]](repeating: [:], count: fieldCount)
            let parts = try readInParts(of: "ATRANSACTION", db, parallelFrom: parallelFrom) { db, range in
                try Self.tally(select, range: range, fields: fieldCount, countingChanges: countingChanges, db)
            }
            for part in parts ?? [] {
                for index in 0..<fieldCount {
                    tallies[index].merge(part[index]) { $0.merged(with: $1) }
                }
            }
            var result: [TransactionField: [FieldSummary]] = [:]
            for (index, field) in fields.enumerated() {
                var byValue: [String?: FieldTally] = [:]
                for (key, tally) in tallies[index] {
                    let value: String?
                    switch key.reference.flatMap({ names[$0] }) {
                    case .text(let name)?: value = name
                    case .blob?: value = nil
                    case nil: value = key.inline
                    }
                    byValue[value] = byValue[value].map { $0.merged(with: tally) } ?? tally
                }
                // SQLite's order: most transactions first, then NULL, then by the bytes of the text.
                result[field] = byValue.sorted { a, b in
                    if a.value.transactions != b.value.transactions {
                        return a.value.transactions > b.value.transactions
                    }
                    guard let x = a.key else { return b.key != nil }
                    guard let y = b.key else { return false }
                    return x.utf8.lexicographicallyPrecedes(y.utf8)
                }.map { value, t in
                    FieldSummary(
                        value: value, transactionCount: t.transactions, changeCount: t.changes,
                        firstTimestamp: t.firstTimestamp,
                        lastTimestamp: t.lastTimestamp, firstTransaction: t.first, lastTransaction: t.last)
                }
            }
            return result
        }
    }

    /// Below this span of transaction numbers one connection summarizes faster than several.
    static let parallelSummaryMinimum: Int64 = 50_000

    /// The tallies of the transactions numbered in `range`, one dictionary per field column pair of `select`.
    private static func tally(
        _ select: String, range: ClosedRange<Int64>, fields: Int, countingChanges: Bool,
        _ db: Database
    ) throws -> [[FieldKey: FieldTally]] {
        var tallies = [[FieldKey: FieldTally]](repeating: [:], count: fields)
        // Consecutive transactions mostly share their values: the last key of each field and its
        // tally are kept apart, and go into the dictionary only when the key changes.
        var current = [(key: FieldKey, tally: FieldTally)?](repeating: nil, count: fields)
        let counts = countingChanges ? try ChangeCounts(db, range: range) : nil
        defer { counts?.finish() }
        try db.forEachRow(select, arguments: [range.lowerBound, range.upperBound]) { row in
            let number = row.int64(0)
            // Only numbers count as times (TEXT or BLOB in ZTIMESTAMP is reported by the readers).
            let timestamp: Double? =
                switch row.storageClass(1) {
                case .integer, .real: row.double(1)
                case .null, .text, .blob: nil
                }
            let changes = try counts?.count(of: number) ?? 0
            for index in 0..<fields {
                let column = Int32(2 + 2 * index)
                let key = FieldKey(
                    reference: row.storageClass(column) == .integer ? row.int64(column) : nil,
                    inline: row.storageClass(column + 1) == .blob ? nil : row.optionalText(column + 1))
                if current[index]?.key != key {
                    if let (old, tally) = current[index] {
                        tallies[index][old] = tallies[index][old].map { $0.merged(with: tally) } ?? tally
                    }
                    current[index] = (key, tallies[index].removeValue(forKey: key) ?? FieldTally(first: number))
                }
                current[index]?.tally.add(number, timestamp: timestamp, changes: changes)
            }
        }
        for index in 0..<fields {
            if let (key, tally) = current[index] { tallies[index][key] = tally }
        }
        return tallies
    }

    /// `ATRANSACTIONSTRING`'s names by `Z_PK` (one row per distinct string: small). A NULL
    /// name is absent: the field falls back to its inline column, as `COALESCE` does.
    private func stringNames(_ db: Database) throws -> [Int64: StringName] {
        var names: [Int64: StringName] = [:]
        try db.forEachRow("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING") { row in
            guard row.storageClass(0) == .integer, !row.isNull(1) else { return }
            names[row.int64(0)] = row.storageClass(1) == .blob ? .blob : row.optionalText(1).map(StringName.text)
        }
        return names
    }

    /// Change counts per `ZENTITY` number.
    /// Counts per `ZENTITY` number and type of every change: one scan of `ACHANGE` split over the
    /// cores by change number, tallied in Swift (SQLite's GROUP BY would sort every row).
    public func entityChangeCounts() throws -> EntityChangeTally {
        try entityChangeCounts(parallelFrom: Self.parallelSummaryMinimum)
    }

    func entityChangeCounts(parallelFrom: Int64) throws -> EntityChangeTally {
        try read { db in
            let parts = try readInParts(of: "ACHANGE", db, parallelFrom: parallelFrom) { db, range in
                var part = EntityChangeTally()
                var ignored: String?
                try db.forEachRow(
                    "SELECT ZENTITY, ZCHANGETYPE FROM ACHANGE WHERE Z_PK BETWEEN ? AND ?",
                    arguments: [range.lowerBound, range.upperBound]
                ) { row in
                    let type = row.integer(1, problem: &ignored).map(ChangeType.init(rawValue:)) ?? .unknown(-1)
                    if let entity = row.integer(0, problem: &ignored) {
                        part.byEntity[entity, default: EntityChangeCounts()].add(type, count: 1)
                    } else {
                        part.withoutEntityNumber.add(type, count: 1)
                    }
                }
                return part
            }
            var result = EntityChangeTally()
            for part in parts ?? [] {
                result.byEntity.merge(part.byEntity) { $0.adding($1) }
                result.withoutEntityNumber = result.withoutEntityNumber.adding(part.withoutEntityNumber)
            }
            return result
        }
    }

    /// Change counts per `ZENTITY` number of the changes `filter` selects
    /// (a condition on `ACHANGE c`; nil: every change).
    package func entityChangeCounts(_ db: Database, filter: String? = nil, arguments: StatementArguments = []) throws
        -> EntityChangeTally
    {
        var result = EntityChangeTally()
        var ignored: String?
        try db.forEachRow(
            "SELECT c.ZENTITY, c.ZCHANGETYPE, COUNT(*) FROM ACHANGE c"
                + (filter.map { " WHERE \($0)" } ?? "") + " GROUP BY 1, 2", arguments: arguments
        ) { row in
            let count = Int(row.int64(2))
            let type = row.integer(1, problem: &ignored).map(ChangeType.init(rawValue:)) ?? .unknown(-1)
            if let entity = row.integer(0, problem: &ignored) {
                result.byEntity[entity, default: EntityChangeCounts()].add(type, count: count)
            } else {
                result.withoutEntityNumber.add(type, count: count)
            }
        }
        return result
    }
}

/// Change counts by entity, and of changes whose `ZENTITY` is not an integer.
public struct EntityChangeTally: Equatable, Sendable {
    /// Counts per `ZENTITY` number.
    public var byEntity: [Int64: EntityChangeCounts] = [:]
    /// Changes whose `ZENTITY` is NULL, TEXT, REAL or a BLOB.
    public var withoutEntityNumber = EntityChangeCounts()

    /// No changes yet.
    public init() {}
}

/// What one transaction's field holds before it is named: a string reference, and the text
/// of the inline column (older stores).
private struct FieldKey: Hashable {
    var reference: Int64?
    var inline: String?
}

/// An `ATRANSACTIONSTRING` name: text, or a BLOB (which names nothing).
private enum StringName {
    case text(String)
    case blob
}

/// The transactions of one field value, tallied in number order.
private struct FieldTally {
    var transactions = 0
    var changes = 0
    var firstTimestamp: Double?
    var lastTimestamp: Double?
    var first: Int64
    var last: Int64

    init(first: Int64) {
        self.first = first
        last = first
    }

    mutating func add(_ number: Int64, timestamp: Double?, changes count: Int) {
        transactions += 1
        changes += count
        last = number
        if let timestamp {
            firstTimestamp = min(firstTimestamp ?? timestamp, timestamp)
            lastTimestamp = max(lastTimestamp ?? timestamp, timestamp)
        }
    }

    func merged(with other: FieldTally) -> FieldTally {
        var m = self
        m.transactions += other.transactions
        m.changes += other.changes
        m.first = min(first, other.first)
        m.last = max(last, other.last)
        m.firstTimestamp = [firstTimestamp, other.firstTimestamp].compactMap { $0 }.min()
        m.lastTimestamp = [lastTimestamp, other.lastTimestamp].compactMap { $0 }.max()
        return m
    }
}

/// The number of changes of each transaction, read in transaction order beside a scan of
/// `ATRANSACTION` (`ACHANGE`'s index on `ZTRANSACTIONID` gives them grouped and sorted).
final class ChangeCounts {
    /// The changes' transaction numbers between two numbers, in number order, from the index
    /// alone: counted here as they pass, a quarter of what SQLite's `GROUP BY` costs per change.
    static let select =
        "SELECT ZTRANSACTIONID FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY ZTRANSACTIONID"

    /// Seeking ahead costs about as much as stepping over this many transaction numbers.
    static let seekDistance: Int64 = 64

    private let statement: Statement
    private let upperBound: Int64
    /// A number this far past the walk's place is sought in the index rather than stepped to;
    /// nil: every number is stepped to.
    private let seek: Int64?
    private var rows: TransactionOrderedRows

    convenience init(_ db: Database, range: ClosedRange<Int64>) throws {
        try self.init(db.makeStatement(sql: Self.select), range: range)
    }

    /// Counts with `statement`, a prepared ``select``, the numbers of `range`. With `seek`, the
    /// numbers asked for may lie far apart (an object's transactions): one more than `seek`
    /// numbers past the walk's place is sought, so that the changes of the transactions between
    /// are not stepped over.
    init(_ statement: Statement, range: ClosedRange<Int64>, seek: Int64? = nil) throws {
        self.statement = statement
        upperBound = range.upperBound
        self.seek = seek
        rows = TransactionOrderedRows(
            try RawCursor(statement, arguments: [range.lowerBound, range.upperBound]), numberColumn: 0)
    }

    /// The changes of transaction `number`; numbers must come in ascending order.
    func count(of number: Int64) throws -> Int {
        // In unsigned arithmetic: a damaged store's numbers may span all of Int64.
        if let seek, let at = try rows.nextNumber(after: nil), number > at,
            UInt64(bitPattern: number &- at) > UInt64(seek), number <= upperBound
        {
            rows.finish()
            rows = TransactionOrderedRows(try RawCursor(statement, arguments: [number, upperBound]), numberColumn: 0)
        }
        var count = 0
        while try rows.next(of: number) { count += 1 }
        return count
    }

    func finish() { rows.finish() }
}

extension HistoryStore {
    /// Whether some transaction has `name` as its author.
    public func hasAuthor(_ name: String) throws -> Bool {
        let (reference, inline) = TransactionField.author.columns
        var terms: [String] = []
        if schema.hasStringTable && schema.transactionColumns.contains(reference) {
            terms.append("\(reference) IN (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?)")
        }
        if schema.transactionColumns.contains(inline) { terms.append("\(inline) = ?") }
        guard !terms.isEmpty else { return false }
        let sql = "SELECT EXISTS (SELECT 1 FROM ATRANSACTION WHERE \(terms.joined(separator: " OR ")))"
        return try read { db in
            try Bool.fetchOne(db, sql: sql, arguments: StatementArguments(Array(repeating: name, count: terms.count)))
                ?? false
        }
    }
}
