import GRDB

/// One writer of CloudKit mirroring's transactions (authors `NSCloudKitMirroringDelegate.*`):
/// a bundle ID and process that mirrored the store.
public struct MirroringWriter: Equatable, Sendable {
    public var bundleID: String?
    public var processID: String?
    public var transactions: Int
    public var firstTransaction: Int64
    public var lastTransaction: Int64
    /// Cocoa seconds; nil when no timestamp is a number.
    public var first: Double?
    public var last: Double?
}

/// What other authors wrote after CloudKit mirroring's last transaction.
public struct MirroringSilence: Equatable, Sendable {
    /// Mirroring's newest transaction; nil when history holds none of it.
    public var lastMirroringTransaction: Int64?
    public var lastMirroringTime: Double?
    /// Transactions after it (all of history when there is none), and their span.
    public var transactionsSince: Int
    public var firstTimeSince: Double?
    public var newestTime: Double?

    /// How long history shows no mirroring while others wrote: from mirroring's last transaction
    /// (or the first transaction after it) to the newest.
    public var seconds: Double? {
        guard let newest = newestTime, let from = lastMirroringTime ?? firstTimeSince else { return nil }
        return max(0, newest - from)
    }
}

extension HistoryStore {
    /// The condition selecting CloudKit mirroring's transactions (`ATRANSACTION t`), by the
    /// author's string reference (indexed) or, in older stores, its inline text.
    private var mirroringCondition: String {
        let glob = "'\(AuthorFamily.cloudKitPrefix)*'"
        var terms: [String] = []
        if schema.hasStringTable, schema.transactionColumns.contains("ZAUTHORTS") {
            terms.append("t.ZAUTHORTS IN (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME GLOB \(glob))")
        }
        if schema.transactionColumns.contains("ZAUTHOR") { terms.append("t.ZAUTHOR GLOB \(glob)") }
        return terms.isEmpty ? "0" : "(" + terms.joined(separator: " OR ") + ")"
    }

    /// Every bundle ID and process that wrote CloudKit mirroring's transactions, most first.
    public func mirroringWriters() throws -> [MirroringWriter] {
        func name(_ field: TransactionField) -> String {
            var parts: [String] = []
            if schema.hasStringTable, schema.transactionColumns.contains(field.columns.reference) {
                parts.append("(SELECT s.ZNAME FROM ATRANSACTIONSTRING s WHERE s.Z_PK = t.\(field.columns.reference))")
            }
            if schema.transactionColumns.contains(field.columns.inline) { parts.append("t.\(field.columns.inline)") }
            return parts.isEmpty ? "NULL" : parts.count == 1 ? parts[0] : "COALESCE(\(parts.joined(separator: ", ")))"
        }
        let number = "CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END"
        return try read { db in
            var writers: [MirroringWriter] = []
            try db.forEachRow("""
                SELECT b, p, COUNT(*), MIN(n), MAX(n), MIN(ts), MAX(ts) FROM (
                  SELECT \(name(.bundleID)) AS b, \(name(.processID)) AS p, t.Z_PK AS n, \(number) AS ts
                  FROM ATRANSACTION t WHERE \(mirroringCondition)) GROUP BY b, p ORDER BY COUNT(*) DESC, MIN(n)
                """) { row in
                var ignored: String?
                writers.append(MirroringWriter(bundleID: row.text(0, problem: &ignored), processID: row.text(1, problem: &ignored),
                                               transactions: Int(row.int64(2)), firstTransaction: row.int64(3), lastTransaction: row.int64(4),
                                               first: row.number(5, problem: &ignored), last: row.number(6, problem: &ignored)))
            }
            return writers
        }
    }

    /// What was written after CloudKit mirroring's newest transaction.
    public func mirroringSilence() throws -> MirroringSilence {
        try read { db in
            var ignored: String?
            let last = try db.firstRow("SELECT t.Z_PK, t.ZTIMESTAMP FROM ATRANSACTION t WHERE \(mirroringCondition) ORDER BY t.Z_PK DESC LIMIT 1") {
                (number: $0.int64(0), time: $0.number(1, problem: &ignored))
            }
            let after = last?.number ?? Int64.min
            let since = try db.firstRow("""
                SELECT COUNT(*), MIN(CASE WHEN typeof(ZTIMESTAMP) IN ('integer', 'real') THEN ZTIMESTAMP END),
                       MAX(CASE WHEN typeof(ZTIMESTAMP) IN ('integer', 'real') THEN ZTIMESTAMP END)
                FROM ATRANSACTION WHERE Z_PK > ?
                """, arguments: [after]) { (count: Int($0.int64(0)), first: $0.number(1, problem: &ignored), last: $0.number(2, problem: &ignored)) }
            return MirroringSilence(lastMirroringTransaction: last?.number, lastMirroringTime: last?.time ?? nil,
                                    transactionsSince: since?.count ?? 0, firstTimeSince: since?.first ?? nil, newestTime: since?.last ?? nil)
        }
    }
}
