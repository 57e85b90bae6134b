/// When deletes count as a burst: more than `share` of at least `minimumObjects` objects of an
/// entity, by one author, each delete at most `window` seconds after the one before (one
/// transaction is always one burst's worth).
public struct DeleteBurstLimits: Equatable, Sendable {
    public private(set) var minimumObjects: Int
    public private(set) var share: Double
    public private(set) var window: Double

    /// Out-of-range values are brought into range: at least one object, a share from 0 up to
    /// (not including) 1, a window of zero seconds or more.
    public init(minimumObjects: Int = 50, share: Double = 0.5, window: Double = 60) {
        self.minimumObjects = max(1, minimumObjects)
        self.share = share.isFinite ? min(max(share, 0), 0.999_999) : 0.5
        self.window = window.isFinite ? max(window, 0) : 60
    }

    /// The fewest deletes that can be a burst: more than `share` of `minimumObjects`.
    var fewestDeletes: Int { Int((share * Double(minimumObjects)).rounded(.down)) + 1 }

    /// Whether `deleted` of `before` objects is a burst.
    func isBurst(deleted: Int, before: Int) -> Bool {
        before >= minimumObjects && Double(deleted) > share * Double(before)
    }
}
