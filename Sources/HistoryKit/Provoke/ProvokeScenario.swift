/// A failure `provoke` puts a store and its merge state into, for an app's test to survive.
public enum ProvokeScenario: String, CaseIterable, Sendable {
    /// Deletes history through the transaction an actor's token names: its next fetch fails with 134301.
    case expiredToken = "expired-token"
    /// Deletes history through the oldest transaction by others an actor (keeping a date) has not merged.
    case missedChanges = "missed-changes"
    /// Moves an actor's position back by some transactions: it merges them again.
    case behind
    /// Replaces an actor's token by a well-formed token of another store.
    case foreignToken = "foreign-token"
    /// Replaces an actor's position by a value that does not decode, under the same key.
    case corruptToken = "corrupt-token"
    /// Deletes history through CloudKit mirroring's export position: the mirror starts over.
    case cloudKitReset = "cloudkit-reset"

    /// Whether it acts on one app's actor (`--actor`).
    public var needsActor: Bool { self != .cloudKitReset }

    /// The `check` rule that reports the state it leaves; nil for `behind` (`actor-behind` reports
    /// it only past that rule's thresholds).
    public var checkRule: String? {
        switch self {
        case .expiredToken: return "actor-expired"
        case .missedChanges: return "actor-missed-changes"
        case .behind: return nil
        case .foreignToken: return "foreign-token"
        case .corruptToken: return "corrupt-token"
        case .cloudKitReset: return "cloudkit-expired"
        }
    }
}

/// What the app meets at its next launch after a provocation: an error (its code and name) or a
/// behaviour.
public struct LaunchExpectation: Equatable, Sendable {
    /// The NSCocoaErrorDomain code, when it is an error.
    public var code: Int?
    /// The error's name, when it has one.
    public var name: String?
    /// What happens, in a sentence.
    public var behaviour: String
}
