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

    /// Creates a transaction from its decoded fields.
    public init(number: Int64, timestamp: Double?, author: String?, contextName: String?, bundleID: String?,
                processID: String?, storeUUID: String, queryGenerationLength: Int?, changeCount: Int) {
        self.number = number
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.storeUUID = storeUUID
        self.queryGenerationLength = queryGenerationLength
        self.changeCount = changeCount
    }

    /// The timestamp as a `Date`, when it is finite.
    public var date: Date? {
        guard let t = timestamp, t.isFinite else { return nil }
        return Date(timeIntervalSinceReferenceDate: t)
    }

    /// The token Core Data hands out for this transaction.
    public var token: HistoryToken { HistoryToken(storeUUID: storeUUID, transactionNumber: number) }
}
