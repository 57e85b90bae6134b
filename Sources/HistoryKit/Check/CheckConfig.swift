import Foundation
import HistoryAnalysis
import HistoryReading

/// Thresholds and settings of `cdhist check`, optionally from a JSON file
/// committed in the app's repository (every key optional):
///
/// ```json
/// { "failOn": "warning", "actors": ["app", "widget"], "batchActors": ["importer"],
///   "strategy": "phtk-2", "skip": ["missing-attribution"],
///   "thresholds": { "maxTransactions": 100000, "maxChanges": 1000000, "maxHistoryShare": 0.5,
///                   "minHistoryBytes": 16777216, "maxHistoryAgeDays": 90, "maxPendingTransactions": 1000,
///                   "maxLagDays": 7,
///                   "staleDays": 30, "maxFreeShare": 0.25, "maxExportPendingTransactions": 100,
///                   "massDeleteMinObjects": 50, "massDeleteShare": 0.5, "massDeleteWindowSeconds": 60,
///                   "dormantMirrorDays": 7, "dormantMirrorTransactions": 20 } }
/// ```
public struct CheckConfig: Equatable, Sendable {
    public var maxTransactions = 100_000
    public var maxChanges = 1_000_000
    public var maxHistoryShare = 0.5
    /// History smaller than this is never too large a share of the file (a small store's
    /// history is most of it, and costs nothing).
    public var minHistoryBytes = 16 << 20
    public var maxHistoryAgeDays = 90.0
    public var maxPendingTransactions = 1000
    public var maxLagDays = 7.0
    public var staleDays = 30.0
    public var maxFreeShare = 0.25
    /// Transactions CloudKit's exporter may have to export before `cloudkit-export-behind` warns.
    public var maxExportPendingTransactions = 100
    /// When `mass-delete` fires (and `watch` warns): over this share of at least this many objects
    /// of an entity, deleted by one author within this window.
    public var massDelete = DeleteBurstLimits()
    /// How long and how many transactions of other authors without mirroring activity make
    /// `dormant-mirror` fire.
    public var dormantMirrorDays = 7.0
    public var dormantMirrorTransactions = 20
    public var failOn: Severity?
    public var actors: [String] = []
    public var batchActors: [String] = []
    /// The app's cleaner, for the CloudKit rule.
    public var strategy: CleanerStrategy?
    public var skip: [String] = []

    public init() {}

    /// Why a config file was refused.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads a config file; unknown keys are errors (a typo should not silently do nothing).
    public static func load(path: String) throws -> CheckConfig {
        guard let data = FileContents.read(path) else {
            throw Failure(description: "\(path): \(FileContents.whyUnreadable(path) ?? "cannot be read")")
        }
        guard case .object(let object)? = try? JSONText.parse([UInt8](data)) else {
            throw Failure(description: "\(path): not a JSON object")
        }
        /// The strings of a JSON array of strings.
        func strings(_ value: JSONNode) -> [String]? {
            guard case .array(let items) = value else { return nil }
            var list: [String] = []
            for item in items {
                guard case .string(let s) = item else { return nil }
                list.append(s)
            }
            return list
        }
        var c = CheckConfig()
        func fail(_ why: String) -> Failure { Failure(description: "\(path): \(why)") }
        for (key, value) in object {
            switch key {
            case "failOn":
                guard case .string(let s) = value, let sev = Severity(rawValue: s) else {
                    throw fail("failOn must be error, warning or info")
                }
                c.failOn = sev
            case "actors", "batchActors", "skip":
                guard let list = strings(value) else { throw fail("\(key) must be a list of strings") }
                if key == "actors" {
                    c.actors = list
                } else if key == "batchActors" {
                    c.batchActors = list
                } else {
                    c.skip = list
                }
            case "strategy":
                guard case .string(let s) = value, let strategy = CleanerStrategy(rawValue: s) else {
                    throw fail(
                        "strategy must be one of \(CleanerStrategy.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                c.strategy = strategy
            case "thresholds":
                guard case .object(let t) = value else { throw fail("thresholds must be an object") }
                for (name, v) in t {
                    let number: Double? =
                        switch v {
                        case .integer(let i): Double(i)
                        case .number(let d): d
                        default: nil
                        }
                    guard let n = number, n >= 0 else {
                        throw fail("thresholds.\(name) must be a non-negative number")
                    }
                    switch name {
                    case "maxTransactions": c.maxTransactions = Self.count(n)
                    case "maxChanges": c.maxChanges = Self.count(n)
                    case "maxHistoryShare": c.maxHistoryShare = n
                    case "minHistoryBytes": c.minHistoryBytes = Self.count(n)
                    case "maxHistoryAgeDays": c.maxHistoryAgeDays = n
                    case "maxPendingTransactions": c.maxPendingTransactions = Self.count(n)
                    case "maxLagDays": c.maxLagDays = n
                    case "staleDays": c.staleDays = n
                    case "maxFreeShare": c.maxFreeShare = n
                    case "maxExportPendingTransactions": c.maxExportPendingTransactions = Self.count(n)
                    case "massDeleteMinObjects":
                        c.massDelete = DeleteBurstLimits(
                            minimumObjects: Self.count(n), share: c.massDelete.share, window: c.massDelete.window)
                    case "massDeleteShare":
                        guard n < 1 else { throw fail("thresholds.massDeleteShare must be below 1") }
                        c.massDelete = DeleteBurstLimits(
                            minimumObjects: c.massDelete.minimumObjects, share: n, window: c.massDelete.window)
                    case "massDeleteWindowSeconds":
                        c.massDelete = DeleteBurstLimits(
                            minimumObjects: c.massDelete.minimumObjects, share: c.massDelete.share, window: n)
                    case "dormantMirrorDays": c.dormantMirrorDays = n
                    case "dormantMirrorTransactions": c.dormantMirrorTransactions = Self.count(n)
                    default: throw fail("unknown threshold '\(name)'")
                    }
                }
            default:
                throw fail("unknown key '\(key)'")
            }
        }
        return c
    }

    /// A count threshold from a JSON number: its whole part, and any number
    /// past `Int.max` (1e300 is valid JSON) is no limit at all.
    private static func count(_ n: Double) -> Int {
        n < Double(Int.max) ? Int(n) : Int.max
    }
}
