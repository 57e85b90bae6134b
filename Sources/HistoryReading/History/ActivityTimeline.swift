import GRDB

/// Transactions per author in equal time buckets from the first to the last
/// timestamp: what a timeline draws.
public struct ActivityTimeline: Equatable, Sendable {
    /// One author's transactions per bucket.
    public struct Lane: Equatable, Sendable {
        /// nil for transactions without an author.
        public var author: String?
        /// Transactions in each bucket (``ActivityTimeline/bucketCount`` entries).
        public var counts: [Int]
        /// All of the author's dated transactions.
        public var total: Int
        /// For a lane of several authors of one framework family (``ActivityTimeline/groupingFamilies(_:)``): the
        /// family.
        public var family: AuthorFamily?
        /// How many authors the lane counts (1 unless it is a family's).
        public var authorCount = 1
        /// What the lane's values are (authors unless the timeline is by another field).
        public var field: TransactionField = .author

        public init(author: String?, counts: [Int], total: Int) {
            self.author = author
            self.counts = counts
            self.total = total
        }

        /// What a chart calls the lane: its author, or its family and how many authors it
        /// counts ("Core Data migration (3 authors)"; `short`: "migrations (3)").
        public func label(short: Bool = false) -> String {
            if let family, authorCount > 1 {
                return short ? "\(family.shortTitle) (\(authorCount))" : "\(family.title) (\(authorCount) authors)"
            }
            return author ?? "(no \(field.noun))"
        }
    }

    /// The busiest lanes and the rest summed (see ``ActivityTimeline/topLanes(_:)``).
    public struct LaneSelection: Equatable, Sendable {
        public var lanes: [Lane]
        /// Every other author's transactions in one lane (its author is nil); nil when there are none.
        public var others: Lane?
        /// How many authors ``others`` sums (a lower bound when ``ActivityTimeline/overflow`` is in it).
        public var otherAuthors: Int
        /// ``others`` includes authors beyond the first ``ActivityTimeline/maxLanes``, which are not counted.
        public var othersOverflowed: Bool
    }

    /// First and last timestamp of the dated transactions (Cocoa seconds); nil when there are none.
    public var range: ClosedRange<Double>?
    /// Seconds one bucket spans (positive).
    public var bucketSeconds: Double
    public var bucketCount: Int
    /// Every author (at most ``maxLanes``), most transactions first, then by name.
    public var lanes: [Lane]
    /// The transactions of authors met after ``maxLanes`` others, summed (their author is nil); nil when there were not
    /// so many.
    public var overflow: Lane?
    /// Transactions without a plausible timestamp (NULL, text, or beyond ±10,000 years): not in any bucket.
    public var undatedCount: Int
    /// What the lanes are: authors, or another field's values.
    public var field: TransactionField = .author

    /// Lanes kept per author; past this many distinct authors (a store whose app
    /// writes a new author name per save), the rest share ``overflow``, so memory
    /// stays bounded whatever the store holds.
    public static let maxLanes = 1000

    /// Timestamps this far from 2001 (about ±10,000 years) are damage, not dates.
    public static let plausibleSeconds = 3.1e11

    /// Where bucket 0 starts (Cocoa seconds).
    public var start: Double { range?.lowerBound ?? 0 }

    /// Where the last bucket ends.
    public var end: Double { start + bucketSeconds * Double(bucketCount) }

    /// Dated transactions.
    public var datedCount: Int { lanes.reduce(overflow?.total ?? 0) { $0 + $1.total } }

    /// The bucket `timestamp` falls in; nil before the first or after the last bucket.
    public func bucket(of timestamp: Double) -> Int? {
        guard range != nil, timestamp.isFinite, timestamp >= start, timestamp <= end else { return nil }
        return Self.bucket((timestamp - start) / bucketSeconds, count: bucketCount)
    }

    /// A position in buckets (any Double, NaN included) as a bucket index in `0..<count`.
    static func bucket(_ position: Double, count: Int) -> Int {
        guard position > 0 else { return 0 }
        return position < Double(count - 1) ? Int(position) : count - 1
    }

    /// The lanes with the authors of each of `families` in one lane (Core Data's
    /// migrations are one author per model version: one lane says it), busiest first.
    public func groupingFamilies(_ families: Set<AuthorFamily>) -> ActivityTimeline {
        var grouped: [Lane] = []
        var index: [AuthorFamily: Int] = [:]
        for lane in lanes {
            guard let family = AuthorFamily.of(lane.author), families.contains(family) else {
                grouped.append(lane)
                continue
            }
            guard let i = index[family] else {
                index[family] = grouped.count
                var first = lane
                first.family = family
                grouped.append(first)
                continue
            }
            for (b, n) in lane.counts.enumerated() where b < grouped[i].counts.count { grouped[i].counts[b] += n }
            grouped[i].total += lane.total
            grouped[i].authorCount += 1
        }
        var copy = self
        copy.lanes = grouped.enumerated().sorted { ($1.element.total, $0.offset) < ($0.element.total, $1.offset) }.map(
            \.element)
        return copy
    }

    /// The `count` busiest lanes, and the others summed into one lane. A single
    /// other author keeps its own lane: a sum of one would only hide its name.
    public func topLanes(_ count: Int) -> LaneSelection {
        let keep = lanes.count <= count + 1 && overflow == nil ? lanes.count : max(0, count)
        let rest = Array(lanes.dropFirst(keep)) + (overflow.map { [$0] } ?? [])
        guard !rest.isEmpty else {
            return LaneSelection(lanes: lanes, others: nil, otherAuthors: 0, othersOverflowed: false)
        }
        var counts = [Int](repeating: 0, count: bucketCount)
        for lane in rest {
            for (i, n) in lane.counts.enumerated() { counts[i] += n }
        }
        return LaneSelection(
            lanes: Array(lanes.prefix(keep)),
            others: Lane(author: nil, counts: counts, total: rest.reduce(0) { $0 + $1.total }),
            otherAuthors: lanes.count - keep + (overflow == nil ? 0 : 1), othersOverflowed: overflow != nil)
    }
}

extension HistoryStore {
    /// Counts transactions per author in `bucketCount` equal buckets spanning
    /// the first to the last timestamp, in one scan of `ATRANSACTION` that adds
    /// each row to a grid of buckets × author keys (the author's string number,
    /// or its inline name). Memory is that grid, whatever the number of rows;
    /// names are looked up once per author afterwards, not joined per row. (A
    /// SQL `GROUP BY bucket, author` sorts every row first: 0.5 s more on a
    /// million transactions than this scan takes in all.)
    /// Lanes are authors, or another field's values (`by`: bundle IDs, processes); `range`'s
    /// `after` and `before` (dates, transaction numbers, tokens) narrow what is counted and spanned.
    public func activityTimeline(
        bucketCount: Int, by field: TransactionField = .author, range: HistoryQuery = HistoryQuery()
    ) throws -> ActivityTimeline {
        let buckets = max(1, bucketCount)
        let limit = ActivityTimeline.plausibleSeconds
        // Typed in SQL, so that a damaged value (text in ZAUTHORTS, a number in ZAUTHOR) is read as what it is.
        let (reference, inline) = field.columns
        let stringColumn =
            schema.hasStringTable && schema.transactionColumns.contains(reference)
            ? "CASE WHEN typeof(\(reference)) = 'integer' THEN \(reference) END" : "NULL"
        let inlineColumn = schema.transactionColumns.contains(inline) ? "CAST(\(inline) AS TEXT)" : "NULL"
        var bounds: [(String, DatabaseValueConvertible)] = []
        if let after = range.after { bounds.append(try HistorySQL.condition(after, ">", store: self)) }
        if let before = range.before { bounds.append(try HistorySQL.condition(before, "<", store: self)) }
        let within = bounds.map { " AND " + $0.0 }.joined()
        let boundArguments: [DatabaseValueConvertible?] = bounds.map(\.1)
        return try read { db in
            let total =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM ATRANSACTION WHERE 1\(within)",
                    arguments: StatementArguments(boundArguments)) ?? 0
            // MIN and MAX in two statements, each one step into the timestamp index (together they would
            // scan it); text, NULL and damaged values fall outside the range.
            let plausible = "FROM ATRANSACTION WHERE ZTIMESTAMP BETWEEN ? AND ?\(within)"
            let arguments = StatementArguments([-limit, limit] as [DatabaseValueConvertible?] + boundArguments)
            guard
                let minimum = try Double.fetchOne(db, sql: "SELECT MIN(ZTIMESTAMP) \(plausible)", arguments: arguments),
                let maximum = try Double.fetchOne(db, sql: "SELECT MAX(ZTIMESTAMP) \(plausible)", arguments: arguments)
            else {
                return ActivityTimeline(
                    range: nil, bucketSeconds: 1, bucketCount: buckets, lanes: [], overflow: nil, undatedCount: total,
                    field: field)
            }
            // A damaged index can disagree with the table it indexes (rows below its MIN or above its
            // MAX, or a MIN above the MAX): such rows go to the first or last bucket.
            let first = min(minimum, maximum)
            let last = max(minimum, maximum)
            // Never zero: a span of a few denormal seconds would divide by zero.
            let width = last > first ? max((last - first) / Double(buckets), .leastNormalMagnitude) : 1
            var grid = AuthorGrid(buckets: buckets)
            // `+ZTIMESTAMP`: a table scan; the timestamp index would add a lookup per row for the same rows.
            let scan =
                """
                SELECT ZTIMESTAMP, \(stringColumn), \(inlineColumn) FROM ATRANSACTION WHERE +ZTIMESTAMP BETWEEN ? \
                AND ?\(within)
                """
            let cursor = try RawCursor(db.makeStatement(sql: scan), arguments: arguments)
            defer { cursor.finish() }
            while try cursor.next() {
                let string = cursor.optionalInt64(1)
                grid.add(
                    AuthorGrid.Key(string: string, inline: string == nil ? cursor.optionalText(2) : nil),
                    bucket: ActivityTimeline.bucket((cursor.double(0) - first) / width, count: buckets))
            }
            var names: [Int64: String] = [:]
            let numbers = Set(grid.keys.compactMap(\.string))
            if !numbers.isEmpty {
                let list = numbers.map(String.init).joined(separator: ",")
                for row in try Row.fetchAll(
                    db, sql: "SELECT Z_PK, CAST(ZNAME AS TEXT) FROM ATRANSACTIONSTRING WHERE Z_PK IN (\(list))")
                {
                    if let pk: Int64 = row[0], let name: String = row[1] { names[pk] = name }
                }
            }
            var counts: [String?: [Int]] = [:]
            for (key, row) in zip(grid.keys, grid.rows) {
                // As the other reads resolve it: the string table first, then the inline column.
                let author = key.string.flatMap { names[$0] } ?? key.inline
                counts[author] = zip(counts[author] ?? row.map { _ in 0 }, row).map { $0 + $1 }
            }
            let lanes = counts.map { count -> ActivityTimeline.Lane in
                var lane = ActivityTimeline.Lane(
                    author: count.key, counts: count.value, total: count.value.reduce(0, +))
                lane.field = field
                return lane
            }
            .sorted { ($1.total, $0.author ?? "") < ($0.total, $1.author ?? "") }
            let overflow = grid.overflow.map { ActivityTimeline.Lane(author: nil, counts: $0, total: $0.reduce(0, +)) }
            let dated = lanes.reduce(overflow?.total ?? 0) { $0 + $1.total }
            return ActivityTimeline(
                range: first...last, bucketSeconds: width, bucketCount: buckets, lanes: lanes, overflow: overflow,
                undatedCount: total - dated, field: field)
        }
    }
}

/// Transactions per bucket for each author key met, in the order met; keys past
/// ``ActivityTimeline/maxLanes`` share one overflow row.
private struct AuthorGrid {
    struct Key: Hashable {
        var string: Int64?
        var inline: String?
    }

    let buckets: Int
    private(set) var keys: [Key] = []
    private(set) var rows: [[Int]] = []
    private(set) var overflow: [Int]?
    private var index: [Key: Int] = [:]
    private var last = -1

    init(buckets: Int) { self.buckets = buckets }

    mutating func add(_ key: Key, bucket: Int) {
        // Rows of one author often come together: skip the lookup then.
        if last < 0 || keys[last] != key {
            if let i = index[key] {
                last = i
            } else if keys.count < ActivityTimeline.maxLanes {
                last = keys.count
                index[key] = last
                keys.append(key)
                rows.append([Int](repeating: 0, count: buckets))
            } else {
                last = -1
                overflow = overflow ?? [Int](repeating: 0, count: buckets)
                overflow?[bucket] += 1
                return
            }
        }
        rows[last][bucket] += 1
    }
}
