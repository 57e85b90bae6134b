import Foundation
import HistoryReading

/// What a health check is asked: where the store's merge state is and how to judge it, the
/// thresholds, which rules, the models, and from which severity a finding fails.
public struct HealthCheckRequest: Sendable {
    /// The merge state's sources and evaluation (its declared and batch actors included).
    public var mergeState: MergeStateRequest
    /// Thresholds and settings (`CheckConfig.load(path:)` reads them from a file).
    public var config: CheckConfig
    /// Only these rules (all when empty).
    public var only: [String]
    /// Not these rules, besides the settings' skip list.
    public var skip: [String]
    /// The model to decode with instead of the store's cache.
    public var modelPath: String?
    /// The model the app's next version ships: the migration-truncation rule reads it.
    public var nextModelPath: String?
    /// Findings of this severity or worse fail; nil: the settings' `failOn`, else errors.
    public var failOn: Severity?
    /// For a page that shows more than the findings (a report): the merge state is analysed
    /// even when no source gives any, and the context also counts changes by type and name.
    public var forAPage: Bool

    public init(
        mergeState: MergeStateRequest, config: CheckConfig, only: [String], skip: [String], modelPath: String?,
        nextModelPath: String?, failOn: Severity?, forAPage: Bool
    ) {
        self.mergeState = mergeState
        self.config = config
        self.only = only
        self.skip = skip
        self.modelPath = modelPath
        self.nextModelPath = nextModelPath
        self.failOn = failOn
        self.forAPage = forAPage
    }
}

/// What a health check found, with what it read to find it.
public struct HealthCheckResult {
    /// The merge state the rules judged (also when they were given none: see ``HealthCheckRequest/forAPage``).
    public var mergeState: MergeStateAnalysis
    /// What the rules read: statistics, tallies and the model, for a caller that shows them too.
    public var context: CheckContext
    /// The rules that ran.
    public var rules: [any CheckRule]
    /// Worst first, then by rule.
    public var findings: [Finding]
    /// The severity from which a finding fails.
    public var threshold: Severity

    /// The findings at or above ``threshold``.
    public var failing: [Finding] { findings.filter { $0.severity >= threshold } }
}

/// `check`'s use case: the store's merge state gathered and analysed, then the health rules run
/// on it, as the command, the report and a test of an app all run them.
public enum HealthCheck {
    public static func run(_ store: HistoryStore, _ request: HealthCheckRequest) throws -> HealthCheckResult {
        let analysis = try MergeStateAnalysis.gather(in: store, request.mergeState, always: request.forAPage)
        let nextModel = try request.nextModelPath.map { try ModelLoader.load(path: $0).model }
        // The rules see merge state only when some was given.
        let context = try CheckContext(
            store: store, mergeState: analysis.isGiven ? analysis.report : nil, mirroring: analysis.mirroring,
            config: request.config, model: try store.resolveModel(userModelPath: request.modelPath),
            now: request.mergeState.now, nextModel: nextModel, readingForAPage: request.forAPage)
        let skip = request.skip + request.config.skip
        let findings = try Checker.run(context, only: request.only, skip: skip).sorted {
            ($1.severity, $0.ruleID) < ($0.severity, $1.ruleID)
        }
        return HealthCheckResult(
            mergeState: analysis, context: context, rules: Checker.rules(only: request.only, skip: skip),
            findings: findings, threshold: request.failOn ?? request.config.failOn ?? .error)
    }
}
