/// A transaction row that decodes without a warning, with a dated timestamp and names read
/// from the string table by reference: what an export formats without building a
/// ``Transaction`` (its strings, per transaction). Its names are places in the read's
/// names, equal places meaning equal names, so a writer formats names again only when they change.
/// Valid only inside the call that hands it out.
public struct PlainTransaction {
    /// Where each name is in the read's names; -1 for none.
    public struct NamePlaces: Equatable {
        public var author: Int32 = -1
        public var contextName: Int32 = -1
        public var bundleID: Int32 = -1
        public var processID: Int32 = -1

        /// Field 0…3: author, context name, bundle ID, process ID.
        subscript(field: Int) -> Int32 {
            get {
                switch field {
                case 0: author
                case 1: contextName
                case 2: bundleID
                default: processID
                }
            }
            set {
                switch field {
                case 0: author = newValue
                case 1: contextName = newValue
                case 2: bundleID = newValue
                default: processID = newValue
                }
            }
        }
    }

    public let number: Int64
    /// Cocoa seconds, within ``Transaction/datedTimestamps``.
    public let timestamp: Double
    public let names: NamePlaces
    public let queryGenerationLength: Int?
    public let changeCount: Int
    /// The read's names; not retained (the read outlives the call that hands this out).
    unowned(unsafe) let table: TransactionNames

    public var author: String? { table.name(at: names.author) }
    public var contextName: String? { table.name(at: names.contextName) }
    public var bundleID: String? { table.name(at: names.bundleID) }
    public var processID: String? { table.name(at: names.processID) }

    /// The same transaction decoded: equal to what a read of its row as a ``Transaction`` gives.
    public func transaction(storeUUID: String) -> Transaction {
        Transaction(
            number: number, timestamp: timestamp, author: author, contextName: contextName, bundleID: bundleID,
            processID: processID, storeUUID: storeUUID, queryGenerationLength: queryGenerationLength,
            changeCount: changeCount)
    }
}
