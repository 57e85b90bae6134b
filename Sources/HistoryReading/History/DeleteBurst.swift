/// One author deleting a large share of an entity's objects in one transaction or within a short
/// window: what an app does when it takes an empty or unreadable store for "the user deleted
/// everything" (and, mirrored with CloudKit, deletes it in iCloud too).
public struct DeleteBurst: Equatable, Sendable {
    /// The entity whose objects went (a concrete entity, as history names it).
    public var entity: String
    /// The transactions' author; nil for transactions without one.
    public var author: String?
    /// The first transaction's bundle ID and process.
    public var bundleID: String?
    public var processID: String?
    public var deleted: Int
    /// Objects of the entity just before the first delete: those in the store now, plus those
    /// deleted since, less those inserted after the burst (as far as history tells).
    public var objectsBefore: Int
    public var transactions: Int
    public var firstTransaction: Int64
    public var lastTransaction: Int64
    /// Cocoa seconds; nil when the timestamps are not numbers.
    public var first: Double?
    public var last: Double?

    /// The deleted share of the objects there were.
    public var share: Double { objectsBefore > 0 ? Double(deleted) / Double(objectsBefore) : 1 }

    /// What happened, in one sentence: who deleted how many of how many objects, and when.
    public var sentence: String {
        let who = author ?? "a context without an author"
        let whence = [bundleID, processID].compactMap { $0 }.joined(separator: ", ")
        var when: String
        if firstTransaction == lastTransaction {
            when = "in transaction #\(firstTransaction)" + (first.map { " (\(moment($0)))" } ?? "")
        } else {
            when =
                "in \(transactions) transactions #\(firstTransaction)–#\(lastTransaction)"
                + (first.map { " from \(moment($0))" } ?? "")
            if let first, let last { when += " within \(span(last - first))" }
        }
        let percent = Int((share * 100).rounded(.down))
        return
            """
            \(who)\(whence.isEmpty ? "" : " (\(whence))") deleted \(deleted) of \(objectsBefore) \(entity) \
            objects (\(percent)%) \(when).
            """
    }
}
