import HistoryAnalysis

/// Where a store's merge state is, and what to evaluate it with: the defaults plists and tokens
/// the user names, an App Group folder, or (none of these) the files beside the store; the
/// actors the app declares; and the time and cleaner settings of the evaluation.
public struct MergeStateRequest: Sendable {
    /// Shared defaults plists (binary or XML).
    public var defaults: [String] = []
    /// Tokens as the user gives them (``TokenSpec``).
    public var tokens: [String] = []
    /// An App Group folder: its defaults plists and token files are read too.
    public var groupContainer: String?
    /// Other defaults key prefixes followed by an actor's name.
    public var keyPrefixes: [String] = []
    /// Actors the app declares (authors that merge).
    public var declared: [String] = []
    /// Authors that only write and never merge.
    public var batch: [String] = []
    /// What the cleaners are configured with (their retention).
    public var cleaners = CleanerSettings()
    /// Cocoa seconds to evaluate at.
    public var now: Double
    /// `now` is a time the user gave (`--now`): actors' lags are measured to it. Otherwise they are
    /// measured to the store's newest transaction, or to `now` while the store is live (``LagClock``).
    public var nowIsGiven = false
    /// The model the user gave (else the store's model cache), for the readers it shows.
    public var modelPath: String?

    public init(
        defaults: [String] = [], tokens: [String] = [], groupContainer: String? = nil, keyPrefixes: [String] = [],
        declared: [String] = [], batch: [String] = [], cleaners: CleanerSettings = CleanerSettings(), now: Double,
        nowIsGiven: Bool = false, modelPath: String? = nil
    ) {
        self.nowIsGiven = nowIsGiven
        self.defaults = defaults
        self.tokens = tokens
        self.groupContainer = groupContainer
        self.keyPrefixes = keyPrefixes
        self.declared = declared
        self.batch = batch
        self.cleaners = cleaners
        self.now = now
        self.modelPath = modelPath
    }
}
