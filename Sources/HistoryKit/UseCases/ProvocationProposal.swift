import HistoryReading

/// What a provocation is asked: the failure, the actor to put into it (none for
/// `cloudkit-reset`), how far back `behind` moves it, and where the store's merge state is.
public struct ProvokeRequest: Sendable {
    public var scenario: ProvokeScenario
    public var actor: String?
    /// How many transactions `behind` moves the actor back.
    public var by: Int
    /// The merge state's sources (its key prefixes are those the keys are rewritten with).
    public var mergeState: MergeStateRequest

    public init(scenario: ProvokeScenario, actor: String?, by: Int, mergeState: MergeStateRequest) {
        self.scenario = scenario
        self.actor = actor
        self.by = by
        self.mergeState = mergeState
    }
}

/// `provoke`'s use case (its plan; ``ProvokeExecutor`` executes it and ``ProvokeBackup`` undoes
/// it): the store's merge state gathered and analysed, and the change that puts the actor into
/// the failure, with whom it breaks.
public struct ProvocationProposal {
    /// The merge state the plan was made from.
    public var mergeState: MergeStateAnalysis
    public var plan: ProvokePlan

    public static func make(_ store: HistoryStore, _ request: ProvokeRequest) throws -> ProvocationProposal {
        let analysis = try MergeStateAnalysis.gather(in: store, request.mergeState, always: true)
        let plan = try ProvokePlan.make(
            request.scenario, in: store, actor: request.actor, by: request.by, analysis: analysis,
            keyPrefixes: request.mergeState.keyPrefixes)
        return ProvocationProposal(mergeState: analysis, plan: plan)
    }
}
