import GRDB
import HistoryReading

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

extension MirroringWriter {
    /// Every bundle ID and process that wrote CloudKit mirroring's transactions in `store`, most first.
    public static func all(in store: HistoryStore) throws -> [MirroringWriter] {
        try MirroringWriterReading(store: store).mirroringWriters()
    }
}

extension MirroringSilence {
    /// What was written in `store` after CloudKit mirroring last showed itself: its newest
    /// transaction, the transaction its export token names, or its newest event in `ANSCKEVENT`,
    /// whichever is latest.
    public static func read(in store: HistoryStore, _ mirroring: MirroringState) throws -> MirroringSilence {
        try MirroringWriterReading(store: store).mirroringSilence(mirroring)
    }
}

/// The reads of `MirroringWriter.all(in:)` and `MirroringSilence.read(in:_:)`, on one store.
private struct MirroringWriterReading {
    let store: HistoryStore

    /// The condition selecting CloudKit mirroring's transactions (`ATRANSACTION t`), by the
    /// author's string reference (indexed) or, in older stores, its inline text.
    private var mirroringCondition: String {
        let glob = "'\(AuthorFamily.cloudKitPrefix)*'"
        var terms: [String] = []
        if store.schema.hasStringTable, store.schema.transactionColumns.contains("ZAUTHORTS") {
            terms.append("t.ZAUTHORTS IN (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME GLOB \(glob))")
        }
        if store.schema.transactionColumns.contains("ZAUTHOR") { terms.append("t.ZAUTHOR GLOB \(glob)") }
        return terms.isEmpty ? "0" : "(" + terms.joined(separator: " OR ") + ")"
    }

    /// ``MirroringWriter/all(in:)``.
    func mirroringWriters() throws -> [MirroringWriter] {
        // The names as every read resolves them: the string table first, then the inline text.
        let names = try HistorySQL(store: store, query: HistoryQuery())
        let number = "CASE WHEN typeof(t.ZTIMESTAMP) IN ('integer', 'real') THEN t.ZTIMESTAMP END"
        return try store.read { db in
            var writers: [MirroringWriter] = []
            try db.forEachRow(
                """
                SELECT b, p, COUNT(*), MIN(n), MAX(n), MIN(ts), MAX(ts) FROM (
                  SELECT \(names.expression(for: .bundleID)) AS b, \(names.expression(for: .processID)) AS p, t.Z_PK \
                AS n, \(number) AS ts
                  FROM ATRANSACTION t\(names.joinClause) WHERE \(mirroringCondition)) GROUP BY b, p ORDER BY COUNT(*) \
                DESC, MIN(n)
                """
            ) { row in
                var ignored: String?
                writers.append(
                    MirroringWriter(
                        bundleID: row.text(0, problem: &ignored), processID: row.text(1, problem: &ignored),
                        transactions: Int(row.int64(2)), firstTransaction: row.int64(3), lastTransaction: row.int64(4),
                        first: row.number(5, problem: &ignored), last: row.number(6, problem: &ignored)))
            }
            return writers
        }
    }

    /// ``MirroringSilence/read(in:_:)``.
    func mirroringSilence(_ mirroring: MirroringState) throws -> MirroringSilence {
        try store.read { db in
            var ignored: String?
            let last = try db.firstRow(
                """
                SELECT t.Z_PK, t.ZTIMESTAMP FROM ATRANSACTION t WHERE \(mirroringCondition) ORDER BY t.Z_PK DESC \
                LIMIT 1
                """
            ) {
                (number: $0.int64(0), time: $0.number(1, problem: &ignored))
            }
            var seen: [(what: MirroringSilence.Activity, time: Double)] = []
            if let last, let time = last.time { seen.append((.transaction(last.number), time)) }
            if case .token(let token)? = mirroring.exportPosition?.position,
                let n = token.transactionNumber(forStore: store.storeUUID),
                let time = try db.firstRow(
                    "SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK = ?", arguments: [n],
                    { $0.number(0, problem: &ignored) }) ?? nil
            {
                seen.append((.exportPosition(n), time))
            }
            if let event = (mirroring.recentEvents ?? []).compactMap({ $0.ended ?? $0.started }).max() {
                seen.append((.event, event))
            }
            let latest = seen.max { $0.time < $1.time }
            let after = try db.firstRow(
                """
                SELECT COUNT(*), MAX(CASE WHEN typeof(ZTIMESTAMP) IN ('integer', 'real') THEN ZTIMESTAMP END),
                       MIN(CASE WHEN typeof(ZTIMESTAMP) IN ('integer', 'real') THEN ZTIMESTAMP END)
                FROM ATRANSACTION WHERE ZTIMESTAMP > ? AND ZTIMESTAMP < ''
                """, arguments: [latest?.time ?? -Double.greatestFiniteMagnitude]
            ) {
                (
                    count: Int($0.int64(0)), newest: $0.number(1, problem: &ignored),
                    oldest: $0.number(2, problem: &ignored)
                )
            }
            return MirroringSilence(
                lastActivity: latest?.what, lastActivityTime: latest?.time, transactionsSince: after?.count ?? 0,
                firstTimeSince: after?.oldest ?? nil, newestTime: after?.newest ?? nil)
        }
    }
}
