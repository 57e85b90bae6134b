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
            when = "in \(transactions) transactions #\(firstTransaction)–#\(lastTransaction)" + (first.map { " from \(moment($0))" } ?? "")
            if let first, let last { when += " within \(span(last - first))" }
        }
        let percent = Int((share * 100).rounded(.down))
        return "\(who)\(whence.isEmpty ? "" : " (\(whence))") deleted \(deleted) of \(objectsBefore) \(entity) objects (\(percent) %) \(when)."
    }
}

/// When deletes count as a burst: more than `share` of at least `minimumObjects` objects, by one
/// author within `window` seconds (one transaction always counts as one window).
public struct DeleteBurstLimits: Equatable, Sendable {
    public var minimumObjects = 50
    public var share = 0.5
    public var window = 60.0

    public init(minimumObjects: Int = 50, share: Double = 0.5, window: Double = 60) {
        self.minimumObjects = minimumObjects
        self.share = share
        self.window = window
    }

    /// The fewest deletes that can be a burst.
    var fewestDeletes: Int { max(1, Int((share * Double(minimumObjects)).rounded(.down)) + 1) }
}

/// One transaction's deletes of one entity, with what the burst search groups by.
struct DeleteEvent {
    var transaction: Int64
    var entity: Int64
    var deletes: Int
    var time: Double?
    var author: String?
    var bundleID: String?
    var processID: String?
}

/// Finds the windows of one author's deletes of one entity that hold enough deletes to be a
/// burst, in time order: a window starts at a delete and takes every later one of the same
/// author and entity within `window` seconds; a window found is skipped past as a whole.
enum DeleteBurstSearch {
    static func windows(_ events: [DeleteEvent], limits: DeleteBurstLimits) -> [[DeleteEvent]] {
        var groups: [GroupKey: [DeleteEvent]] = [:]
        for e in events { groups[GroupKey(entity: e.entity, author: e.author), default: []].append(e) }
        var found: [[DeleteEvent]] = []
        for key in groups.keys.sorted(by: { ($0.entity, $0.author ?? "") < ($1.entity, $1.author ?? "") }) {
            let list = groups[key, default: []].sorted { ($0.time ?? -.infinity, $0.transaction) < ($1.time ?? -.infinity, $1.transaction) }
            var start = 0
            var end = 0
            var sum = 0
            while start < list.count {
                if end < start + 1 {
                    end = start + 1
                    sum = list[start].deletes
                }
                while end < list.count, let t0 = list[start].time, let t = list[end].time, t - t0 <= limits.window {
                    sum += list[end].deletes
                    end += 1
                }
                if sum >= limits.fewestDeletes {
                    found.append(Array(list[start..<end]))
                    start = end
                } else {
                    sum -= list[start].deletes
                    start += 1
                }
            }
        }
        return found.sorted { ($0.first?.transaction ?? 0) < ($1.first?.transaction ?? 0) }
    }

    private struct GroupKey: Hashable {
        var entity: Int64
        var author: String?
    }
}
