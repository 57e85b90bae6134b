import GRDB

/// One transaction as a ``TransactionScan`` passes it on.
package struct ScannedTransaction {
    package var number: Int64
    /// A numeric `ZTIMESTAMP`; nil for NULL, TEXT and BLOB.
    package var timestamp: Double?
    /// `ZTIMESTAMP` is TEXT or a BLOB, which SQLite (and so Core Data's
    /// date queries) orders after every number.
    var timestampSortsLast = false
    /// Index into the scan's ``TransactionScan/authorNames`` (0: no author).
    package var author: Int
    /// Whether the scan's query matches it.
    package var matches: Bool
    /// `ZAUTHORTS`, `ZCONTEXTNAMETS`, `ZBUNDLEIDTS`, `ZPROCESSIDTS` (nil where NULL, absent or not an integer).
    package var stringReferences: (Int64?, Int64?, Int64?, Int64?)
}

/// Reads every transaction once, in number order, with its author resolved
/// as ``HistorySQL`` resolves it (string table first, then inline text) and
/// whether a query matches it. Analyses that need several grouped counts
/// (merge state, purge previews) make this one pass through the table
/// instead of one grouped query each: SQLite groups through an index and
/// then fetches every row at random, which on a million transactions costs
/// seconds per question.
package struct TransactionScan {
    /// Author names by the index rows carry; index 0 is "no author".
    package private(set) var authorNames: [String?] = [nil]
    private var authorIndexByName: [String: Int] = [:]
    private var authorIndexByReference: [Int64: Int] = [:]
    private let strings: [Int64: String]
    /// String-table entries whose name is a BLOB: the join of HistorySQL yields the
    /// BLOB (no author) rather than falling back to the inline `ZAUTHOR`.
    private let blobStrings: Set<Int64>
    private let sql: String
    private let arguments: StatementArguments

    /// `query` decides ``ScannedTransaction/matches`` (nil: everything matches);
    /// its limit and change filters are not used.
    package init(store: HistoryStore, db: Database, query: HistoryQuery? = nil) throws {
        let schema = store.schema
        func column(_ name: String) -> String { schema.transactionColumns.contains(name) ? "t.\(name)" : "NULL" }
        let references = ["ZAUTHORTS", "ZCONTEXTNAMETS", "ZBUNDLEIDTS", "ZPROCESSIDTS"].map {
            schema.hasStringTable ? column($0) : "NULL"
        }
        var matches = "1"
        var joins = ""
        var arguments = StatementArguments()
        if let query {
            var q = query
            q.limit = nil
            let history = try HistorySQL(store: store, query: q)
            if let filter = history.transactionFilter {
                matches = "(\(filter.expression))"
                joins = filter.joins
                arguments = history.arguments
            }
        }
        sql =
            "SELECT t.Z_PK, t.ZTIMESTAMP, \(column("ZAUTHOR")), \(references.joined(separator: ", ")), \(matches) "
            + "FROM ATRANSACTION t\(joins) ORDER BY t.Z_PK"
        self.arguments = arguments
        var strings: [Int64: String] = [:]
        var blobStrings = Set<Int64>()
        if schema.hasStringTable {
            let cursor = try RawCursor(
                db.makeStatement(sql: "SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING"), arguments: [])
            defer { cursor.finish() }
            while try cursor.next() {
                var problem: String?
                if let name = cursor.text(1, problem: &problem) {
                    strings[cursor.int64(0)] = name
                } else if problem != nil {
                    blobStrings.insert(cursor.int64(0))
                }
            }
        }
        self.strings = strings
        self.blobStrings = blobStrings
    }

    /// The name of a string-table entry (nil when it does not exist).
    package func string(_ reference: Int64) -> String? { strings[reference] }

    /// All string-table entries that have a name.
    package var stringCount: Int { strings.count }

    /// Calls `body` for every transaction in number order.
    package mutating func run(_ db: Database, _ body: (ScannedTransaction) throws -> Void) throws {
        let cursor = try RawCursor(db.makeStatement(sql: sql), arguments: arguments)
        defer { cursor.finish() }
        // Values of the wrong type read as null here, as the joins of HistorySQL see them
        // (a REAL 1.5 reference matches no string); the readers report them.
        var ignored: String?
        while try cursor.next() {
            let references = (
                cursor.integer(3, problem: &ignored), cursor.integer(4, problem: &ignored),
                cursor.integer(5, problem: &ignored), cursor.integer(6, problem: &ignored)
            )
            let author: Int
            if let reference = references.0, let known = authorIndexByReference[reference] {
                author = known
            } else if let reference = references.0, let name = strings[reference] {
                author = index(of: name)
                authorIndexByReference[reference] = author
            } else if let reference = references.0, blobStrings.contains(reference) {
                author = 0
            } else {
                author = cursor.text(2, problem: &ignored).map { index(of: $0) } ?? 0
            }
            let timestamp = cursor.number(1, problem: &ignored)
            try body(
                ScannedTransaction(
                    number: cursor.int64(0), timestamp: timestamp,
                    timestampSortsLast: timestamp == nil && !cursor.isNull(1),
                    author: author, matches: cursor.int64(7) != 0, stringReferences: references))
        }
    }

    private mutating func index(of name: String) -> Int {
        if let known = authorIndexByName[name] { return known }
        authorNames.append(name)
        authorIndexByName[name] = authorNames.count - 1
        return authorNames.count - 1
    }
}

/// Transactions of one author counted during a scan.
package struct AuthorTally {
    package var count = 0
    package var firstTimestamp: Double?
    package var lastTimestamp: Double?
    package var firstNumber = Int64.max
    package var lastNumber = Int64.min

    mutating func add(_ t: ScannedTransaction) {
        count += 1
        if let ts = t.timestamp {
            firstTimestamp = min(firstTimestamp ?? ts, ts)
            lastTimestamp = max(lastTimestamp ?? ts, ts)
        }
        firstNumber = min(firstNumber, t.number)
        lastNumber = max(lastNumber, t.number)
    }
}

/// ``AuthorTally``s indexed like ``TransactionScan/authorNames``.
package struct AuthorTallies {
    package private(set) var tallies: [AuthorTally] = []

    package init() {}

    package mutating func add(_ t: ScannedTransaction) {
        if t.author >= tallies.count { tallies += Array(repeating: AuthorTally(), count: t.author - tallies.count + 1) }
        tallies[t.author].add(t)
    }

    /// Authors with at least one transaction, most first, then by name as
    /// SQLite orders them (no author first, then byte order).
    package func sorted(names: [String?]) -> [(author: String?, tally: AuthorTally)] {
        tallies.indices.filter { tallies[$0].count > 0 && $0 < names.count }
            .map { (author: names[$0], tally: tallies[$0]) }
            .sorted { a, b in
                if a.tally.count != b.tally.count { return a.tally.count > b.tally.count }
                switch (a.author, b.author) {
                case (nil, nil): return false
                case (nil, _): return true
                case (_, nil): return false
                case (let x?, let y?): return x.utf8.lexicographicallyPrecedes(y.utf8)
                }
            }
    }
}

/// A condition on a scanned transaction, with SQL's meaning (a NULL
/// timestamp is neither before nor after a date; TEXT or a BLOB is after
/// every date).
package enum ScanBound {
    case all
    case afterNumber(Int64)
    case afterDate(Double)
    /// At or after the date.
    case fromDate(Double)
    case beforeDate(Double)

    package func holds(_ t: ScannedTransaction) -> Bool {
        switch self {
        case .all: return true
        case .afterNumber(let n): return t.number > n
        case .afterDate(let d): return t.timestamp.map { $0 > d } ?? t.timestampSortsLast
        case .fromDate(let d): return t.timestamp.map { $0 >= d } ?? t.timestampSortsLast
        case .beforeDate(let d): return t.timestamp.map { $0 < d } ?? false
        }
    }
}

/// The string-table references seen in a scan. Each row carries four and
/// the same few repeat on every row, so the last ones seen are remembered
/// and only new ones reach the set.
package struct ReferenceSet {
    package private(set) var members = Set<Int64>()
    private var recent: (Int64?, Int64?, Int64?, Int64?) = (nil, nil, nil, nil)

    package init() {}

    package mutating func insert(_ refs: (Int64?, Int64?, Int64?, Int64?)) {
        if refs.0 != recent.0, let r = refs.0 { members.insert(r) }
        if refs.1 != recent.1, let r = refs.1 { members.insert(r) }
        if refs.2 != recent.2, let r = refs.2 { members.insert(r) }
        if refs.3 != recent.3, let r = refs.3 { members.insert(r) }
        recent = refs
    }
}
