import HistoryReading
import HistoryWrites

/// What a diagnosis report is asked: the health check (its merge state included), the purge to
/// preview if any, and how much of the timeline and of CloudKit's state to keep.
public struct DiagnosisRequest: Sendable {
    /// The check, run for a page (its merge state analysed even without a source).
    public var check: HealthCheckRequest
    /// The purge to preview; nil for none.
    public var cutoff: PurgeCutoff?
    /// Buckets of the activity timeline.
    public var timelineBuckets: Int
    /// CloudKit's objects and events listed at most.
    public var cloudKitItems: Int

    public init(check: HealthCheckRequest, cutoff: PurgeCutoff?, timelineBuckets: Int, cloudKitItems: Int) {
        self.check = check
        self.check.forAPage = true
        self.cutoff = cutoff
        self.timelineBuckets = timelineBuckets
        self.cloudKitItems = cloudKitItems
    }
}

/// `report`'s use case: everything a diagnosis page shows, read with the same calls the
/// commands make (the check's, the purge's, CloudKit's), so that the page says what they say.
public struct Diagnosis {
    /// The findings, with the merge state and the statistics and tallies the rules read.
    public var check: HealthCheckResult
    /// The purge previewed, as `purge` plans it; nil when none was asked.
    public var purge: PurgeProposal?
    /// When the previewed purge cuts (nil: no purge, or a cut-off without a date).
    public var cutoffTimestamp: Double?
    public var timeline: ActivityTimeline
    public var cloudKit: CloudKitStatus
    /// Authors with their transactions and changes.
    public var authors: [FieldSummary]
    /// Changes per entity and type.
    public var entities: EntityChangeTally

    public static func make(_ store: HistoryStore, _ request: DiagnosisRequest) throws -> Diagnosis {
        let check = try HealthCheck.run(store, request.check)
        let purge = try request.cutoff.map {
            try PurgeProposal.make(
                store, cutoff: $0, narrowing: HistoryQuery(), mergeState: check.mergeState, breakdown: true)
        }
        let now = request.check.mergeState.now
        return Diagnosis(
            check: check, purge: purge, cutoffTimestamp: try purge?.selection.timestamp(in: store),
            timeline: try store.activityTimeline(bucketCount: request.timelineBuckets),
            cloudKit: try CloudKitStatus.read(
                store, now: now, nowIsGiven: request.check.mergeState.nowIsGiven, objects: request.cloudKitItems,
                events: request.cloudKitItems),
            authors: try check.context.attribution()[.author] ?? [],
            entities: try check.context.entityChangeCounts())
    }
}
