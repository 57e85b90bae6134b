extension Double {
    /// The whole part for messages (`12` for 12.7), without the trap of
    /// `Int(_:)` on the infinite or huge values a damaged store yields
    /// (an age computed from a timestamp of -1e300 seconds).
    public var wholeDescription: String {
        guard isFinite else {
            return self > 0 ? "infinitely many" : self < 0 ? "minus infinitely many" : "an unknown number of"
        }
        guard abs(self) < 9e18 else { return String(format: "%.3g", self) }
        return String(Int64(self.rounded(.towardZero)))
    }
}
