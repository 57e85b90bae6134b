/// An `NSPersistentHistoryToken`: for each store UUID, the number of the
/// last transaction it stands for (`ATRANSACTION.Z_PK`).
public struct HistoryToken: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Store UUID → transaction number.
    public var transactionNumbers: [String: Int64]

    /// A token for several stores at once.
    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    /// The token of one transaction: `{storeUUID: transactionNumber}`.
    public init(storeUUID: String, transactionNumber: Int64) {
        transactionNumbers = [storeUUID: transactionNumber]
    }

    /// The transaction number for `storeUUID` (compared case-insensitively).
    public func transactionNumber(forStore storeUUID: String) -> Int64? {
        if let n = transactionNumbers[storeUUID] { return n }
        return transactionNumbers.first { $0.key.caseInsensitiveCompare(storeUUID) == .orderedSame }?.value
    }

    /// `UUID:N`, several joined by commas, sorted by UUID.
    public var description: String {
        transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }
}
