import Foundation
import HistoryAnalysis
import HistoryReading

/// How serious a finding is.
public enum Severity: String, CaseIterable, Comparable, Sendable {
    case info, warning, error

    private var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One thing a health rule found.
public struct Finding: Sendable {
    public var ruleID: String
    public var severity: Severity
    /// Written for the app developer: what is wrong and what to do.
    public var message: Message
    /// Machine-readable details.
    public var data: [String: PlistValue]

    public init(ruleID: String, severity: Severity, message: Message, data: [String: PlistValue] = [:]) {
        self.ruleID = ruleID
        self.severity = severity
        self.message = message
        self.data = data
    }
}

/// A health rule: a stable id, a severity, and an evaluation.
public protocol CheckRule: Sendable {
    /// Stable identifier (used by `--rule`, `--skip` and in JSON).
    var id: String { get }
    var severity: Severity { get }
    /// What the rule checks, in one line.
    var summary: String { get }
    func evaluate(_ context: CheckContext) throws -> [Finding]
}

extension CheckRule {
    /// A finding of this rule at its severity.
    func finding(_ message: Message, _ data: [String: PlistValue] = [:]) -> Finding {
        Finding(ruleID: id, severity: severity, message: message, data: data)
    }
}

/// A rule that reports every actor in one broken status, with the analyzer's
/// explanation and advice.
protocol ActorStatusRule: CheckRule {
    var status: ActorStatus { get }
}

extension ActorStatusRule {
    func evaluate(_ c: CheckContext) throws -> [Finding] {
        // CloudKit's exporter has rules of its own.
        (c.mergeState?.actors ?? []).filter { $0.status == status && $0.kind == .app }.map { a in
            var data: [String: PlistValue] = [
                "actor": .string(a.name), "source": .string(a.records.first?.source ?? ""),
            ]
            if let n = a.tokenNumber { data["tokenTransactionNumber"] = .integer(n) }
            return finding("\(a.name): \(a.explanation). Fix: \(a.advice).", data)
        }
    }
}

/// What the rules look at, computed once.
public final class CheckContext {
    public let store: HistoryStore
    public let statistics: HistoryStatistics
    /// Merge state, when defaults, tokens or actors were given or the store is mirrored.
    public let mergeState: MergeStateReport?
    /// CloudKit mirroring's state, when the store is mirrored.
    public let mirroring: MirroringState?
    public let config: CheckConfig
    public let model: ModelResolution
    /// Cocoa seconds.
    public let now: Double
    /// The model the app's next version ships (`--next-model`), for the migration rule.
    public let nextModel: ManagedObjectModel?
    /// Whether the context also reads what a page shows beside the findings (a report): its
    /// ``statistics`` count changes by type and its ``attribution()`` counts each name's changes.
    public let readsForAPage: Bool
    private var entityTally: EntityChangeTally?
    private var attributionSummaries: [TransactionField: [FieldSummary]]?

    /// `readingForAPage`: the statistics count changes by type, from the entity tally (read
    /// now, once, as ``entityChangeCounts()`` gives it), and ``attribution()`` counts changes.
    public init(
        store: HistoryStore, mergeState: MergeStateReport?, mirroring: MirroringState? = nil, config: CheckConfig,
        model: ModelResolution, now: Double, nextModel: ManagedObjectModel? = nil, readingForAPage: Bool = false
    ) throws {
        self.store = store
        readsForAPage = readingForAPage
        if readingForAPage {
            let tally = try store.entityChangeCounts()
            entityTally = tally
            statistics = try store.statistics(changeTypes: tally)
        } else {
            statistics = try store.statistics()
        }
        self.mergeState = mergeState
        self.mirroring = mirroring
        self.config = config
        self.model = model
        self.now = now
        self.nextModel = nextModel
    }

    /// Changes per entity and type, read once for the rules that need them and for a caller
    /// that shows them (the report's Entities section).
    public func entityChangeCounts() throws -> EntityChangeTally {
        if let entityTally { return entityTally }
        let tally = try store.entityChangeCounts()
        entityTally = tally
        return tally
    }

    /// Each author and context name with its transactions (its changes too with
    /// ``readsForAPage``), read once, in one pass, for the rules and a caller.
    public func attribution() throws -> [TransactionField: [FieldSummary]] {
        if let attributionSummaries { return attributionSummaries }
        let summaries = try store.fieldSummaries([.author, .contextName], countingChanges: readsForAPage)
        attributionSummaries = summaries
        return summaries
    }
}

/// Runs rules and collects findings.
public enum Checker {
    /// Every rule, in the order they run.
    public static let rules: [any CheckRule] = [
        ActorExpiredRule(), ActorMissedChangesRule(), ForeignTokenRule(), CorruptTokenRule(),
        ActorBehindRule(), ActorNotMergingRule(), StaleActorRule(), PositionAfterNewestRule(), AuthorMismatchRule(),
        NoMergePositionRule(),
        CloudKitExpiredRule(), CloudKitTokenUnreadableRule(),
        CloudKitExportFailingRule(), CloudKitExportBehindRule(), CloudKitRecordsPendingRule(), TwoMirrorsRule(),
        DormantMirrorRule(), HistoryTooLargeRule(), HistoryOldRule(), MissingAttributionRule(),
        CloudKitPurgeRule(), SpotlightReaderRule(), MigrationTruncationRule(), WALMissingRule(), WALDamagedRule(),
        OrphanChangesRule(), MassDeleteRule(), CascadeOrphansRule(), UnknownEntityRule(),
        ColumnsMismatchRule(), WrongTypeRule(), FreePagesRule(),
    ]

    /// Runs the rules named in `only` (all when empty) except those in `skip`.
    public static func run(_ context: CheckContext, only: [String] = [], skip: [String] = []) throws -> [Finding] {
        try rules(only: only, skip: skip).flatMap { try $0.evaluate(context) }
    }

    /// The rules a run with `only` and `skip` runs, in order.
    public static func rules(only: [String] = [], skip: [String] = []) -> [any CheckRule] {
        rules.filter { (only.isEmpty || only.contains($0.id)) && !skip.contains($0.id) }
    }
}
