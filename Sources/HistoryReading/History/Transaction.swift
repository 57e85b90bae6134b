import Foundation

/// One row of `ATRANSACTION`: a save, as `NSPersistentHistoryTransaction` reports it.
public struct Transaction: Equatable, Sendable {
    /// `Z_PK`: `transactionNumber`.
    public var number: Int64
    /// `ZTIMESTAMP`: Cocoa seconds (since 2001-01-01 UTC) with sub-second precision; nil if NULL.
    public var timestamp: Double?
    public var author: String?
    public var contextName: String?
    public var bundleID: String?
    /// The process name (`ZPROCESSIDTS`), not a numeric PID.
    public var processID: String?
    /// `storeID`: the store UUID.
    public var storeUUID: String
    /// Length of the opaque `ZQUERYGEN` blob, nil when NULL.
    public var queryGenerationLength: Int?
    /// Number of `ACHANGE` rows of this transaction.
    public var changeCount: Int
    /// What could not be read as Core Data writes it: a column of another
    /// SQLite type (read as null), a timestamp no date expresses.
    public var warnings: [DecodingWarning]

    /// Cocoa seconds from 0001-01-01T00:00:00.000Z up to (not including) the
    /// millisecond after 9999-12-31T23:59:59.999Z: the timestamps an ISO 8601
    /// date with a four-digit year expresses. Others are reported, not dated.
    public static let datedTimestamps: Range<Double> = -63_113_904_000..<252_423_993_599.9995

    /// Creates a transaction from its decoded fields.
    public init(
        number: Int64, timestamp: Double?, author: String?, contextName: String?, bundleID: String?,
        processID: String?, storeUUID: String, queryGenerationLength: Int?, changeCount: Int,
        warnings: [DecodingWarning] = []
    ) {
        self.number = number
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.storeUUID = storeUUID
        self.queryGenerationLength = queryGenerationLength
        self.changeCount = changeCount
        self.warnings = warnings
    }

    /// The timestamp as a `Date`, when it is within ``datedTimestamps``.
    public var date: Date? {
        guard let t = timestamp, Self.datedTimestamps.contains(t) else { return nil }
        return Date(timeIntervalSinceReferenceDate: t)
    }

    /// The token Core Data hands out for this transaction.
    public var token: HistoryToken { HistoryToken(storeUUID: storeUUID, transactionNumber: number) }
}
